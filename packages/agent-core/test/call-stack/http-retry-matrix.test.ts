/**
 * Which failures before any output the transport retry sends again, as each
 * of pi-ai's providers reports them over HTTP: every status with every body
 * a server or a proxy answers with (the API's JSON, plain text, an HTML
 * page, nothing, each with its own content type), through the OpenAI SDK
 * (chat completions, responses), the Anthropic SDK and Google's Gen AI SDK
 * (Gemini), each writing the failure in words of its own. A
 * transient failure (408, 429, a 5xx but 501, a server error said in an
 * error event without a status) is one more request; any other is none.
 */
import { describe, expect, it } from "vitest";
import type { ScriptStep } from "../support/fake-openai-server.js";
import { callStack, serve } from "../support/http-call-stack.js";

/** An error body and the headers it is sent with. */
type Body = Pick<Extract<ScriptStep, { type: "status" }>, "body" | "headers">;

/** An OpenAI-style JSON error, as OpenAI, Anthropic-compatible gateways and most proxies send. */
const openaiJson = (status: number): Body => ({
  body: { error: { message: `the upstream said ${status}`, type: "upstream_error" } },
});

/** Gemini's JSON error: its own code and status name beside the message. */
const GOOGLE_STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
};
const googleJson = (status: number): Body => ({
  body: { error: { code: status, message: `the upstream said ${status}`, status: GOOGLE_STATUS[status] ?? "UNKNOWN" } },
});

/** Each API with the base URL its SDK is given and the JSON error its server sends. */
const APIS = [
  ["openai-completions", (baseUrl: string) => baseUrl, openaiJson],
  ["openai-responses", (baseUrl: string) => baseUrl, openaiJson],
  ["anthropic-messages", (baseUrl: string) => baseUrl.replace(/\/v1$/, ""), openaiJson],
  // Google's SDK reports a JSON error body without the response's status: only a body with its own code says it.
  ["google-generative-ai", (baseUrl: string) => baseUrl, googleJson],
] as const;

const BODIES: Record<string, (status: number, api: (typeof APIS)[number]) => Body> = {
  json: (status, [, , json]) => json(status),
  text: (status) => ({ body: `the upstream said ${status}` }),
  html: (status) => ({
    body: `<html><head><title>${status}</title></head><body><h1>${status}</h1><hr>nginx</body></html>`,
    headers: { "content-type": "text/html" },
  }),
  empty: () => ({ body: null }),
};

const TRANSIENT = [408, 429, 500, 502, 503, 504, 529];
const FINAL = [400, 401, 403, 404, 422, 501];

/** How many requests one failure before output, then a final 400, takes with one retry allowed. */
async function requestsFor(api: (typeof APIS)[number], failure: ScriptStep): Promise<number> {
  const [name, base] = api;
  const server = await serve(failure, { type: "status", status: 400, message: "stop here" });
  const { run } = callStack(server, { retry: { maxRetries: 1 }, model: { api: name, baseUrl: base(server.baseUrl) } });
  await run();
  return server.requests.length;
}

describe.each(APIS)("through pi-ai's %s provider", (...api) => {
  it("a transient status is retried whatever its body; any other status is final", async () => {
    const decisions: string[] = [];
    for (const [shape, body] of Object.entries(BODIES))
      for (const status of [...TRANSIENT, ...FINAL]) {
        const requests = await requestsFor(api, { type: "status", status, ...body(status, api) });
        decisions.push(`${status} ${shape}: ${requests === 2 ? "retried" : "final"}`);
      }
    const expected = Object.keys(BODIES).flatMap((shape) => [
      ...TRANSIENT.map((status) => `${status} ${shape}: retried`),
      ...FINAL.map((status) => `${status} ${shape}: final`),
    ]);
    expect(decisions).toEqual(expected);
  });
});

describe("a server error sent as an event before any output, without a status", () => {
  it.each([
    [
      "openai-completions",
      { error: { message: "The server had an error while processing your request.", type: "server_error" } },
    ],
    [
      "openai-responses",
      { type: "error", code: "server_error", message: "An error occurred while processing your request." },
    ],
  ] as const)("through pi-ai's %s provider is retried", async (name, event) => {
    const api = APIS.find(([each]) => each === name)!;
    expect(await requestsFor(api, { type: "sse", chunks: [event] })).toBe(2);
  });
});
