import { afterEach, describe, expect, it } from "vitest";
import { Agent, streamProxy } from "../../src/index.js";
import { ProxyRequestError } from "../../src/proxy-server/index.js";
import { createScriptedModel, endWithoutDone, errorAfter, reject, throwSync } from "../../src/testing/index.js";
import {
  collect,
  contextOf,
  eventShapes,
  GOOD_AUTH,
  GOOD_TOKEN,
  startProxyServer,
  type TestProxyServer,
} from "./proxy-test-server.js";

/** Given our proxy server on 127.0.0.1, when the model fails, the host refuses, or the request is malformed. */
describe("stream proxy failures", () => {
  let server: TestProxyServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const call = (model = createScriptedModel().model, token = GOOD_TOKEN) =>
    collect(streamProxy(model, contextOf("Hi"), { authToken: token, proxyUrl: server!.url }));

  it("a provider error mid-stream arrives as the error event, with the text streamed so far", async () => {
    const behind = createScriptedModel([errorAfter(3, "connection reset", { response: "Counting one two three" })]);
    server = await startProxyServer({ streamFn: behind.streamFn });

    const { events, result } = await call(behind.model);

    expect(eventShapes(events)).toEqual(["start", "text_start", 'text_delta "Counting"', "error"]);
    expect(result).toMatchObject({
      stopReason: "error",
      errorMessage: "connection reset",
      content: [{ type: "text", text: "Counting" }],
    });
    expect(server.errors).toEqual([]);
  });

  it.each([
    ["throws", throwSync(new Error("provider misconfigured"))],
    ["rejects", reject(new Error("provider misconfigured"))],
  ])("a stream function that %s: one error event with its message, reported to onError", async (_how, fault) => {
    const behind = createScriptedModel([fault]);
    server = await startProxyServer({ streamFn: behind.streamFn });

    const { events, result } = await call(behind.model);

    expect(eventShapes(events)).toEqual(["error"]);
    expect(result).toMatchObject({ stopReason: "error", errorMessage: "provider misconfigured", content: [] });
    expect(server.errors.map(({ error, stage }) => [stage, (error as Error).message])).toEqual([
      ["upstream", "provider misconfigured"],
    ]);
  });

  it("a model stream that ends without done or error: its settled result if any, else an error event", async () => {
    const behind = createScriptedModel([endWithoutDone("kept", { resolveResult: true }), endWithoutDone("lost")]);
    server = await startProxyServer({ streamFn: behind.streamFn });

    const kept = await call(behind.model);
    const lost = await call(behind.model);

    expect(kept.events.at(-1)?.type).toBe("done");
    expect(kept.result).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "kept" }] });
    expect(lost.events.at(-1)?.type).toBe("error");
    expect(lost.result).toMatchObject({
      stopReason: "error",
      errorMessage: "The model stream ended without a final message",
      content: [{ type: "text", text: "lost" }],
    });
  });

  it("a call it cannot use ends the stream with an error naming the field, without a request", async () => {
    const { model } = createScriptedModel([]);
    const context = { systemPrompt: "s", messages: [] };
    for (const [options, message] of [
      [undefined, "options must be an object with proxyUrl and authToken, got undefined"],
      [{ authToken: "t" }, "options.proxyUrl must be the server's base URL, got undefined"],
      [{ proxyUrl: 5, authToken: "t" }, "options.proxyUrl must be the server's base URL, got 5"],
      [{ proxyUrl: "http://127.0.0.1:9", authToken: null }, "options.authToken must be a string, got null"],
      [
        { proxyUrl: "http://127.0.0.1:9", authToken: "t", signal: {} },
        "options.signal must be an AbortSignal, got object",
      ],
    ] as const) {
      const final = await streamProxy(model, context, options as never).result();
      expect(final).toMatchObject({ stopReason: "error", errorMessage: `streamProxy: ${message}`, model: model.id });
    }
    const final = await streamProxy(null as never, context, { proxyUrl: "http://x", authToken: "t" }).result();
    expect(final).toMatchObject({
      stopReason: "error",
      errorMessage: "streamProxy: model must be a pi-ai Model object, got null",
    });
  });

  it("auth refusal: the host's message as 'Proxy error: …', and no model call", async () => {
    const behind = createScriptedModel(["never"]);
    server = await startProxyServer({ streamFn: behind.streamFn });
    const agent = new Agent({
      initialState: { model: behind.model },
      streamFn: (model, context, options) =>
        streamProxy(model, context, { ...options, authToken: "stolen", proxyUrl: server!.url }),
    });

    await agent.prompt("Hi");

    expect(agent.state.errorMessage).toBe("Proxy error: unknown token");
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "error", content: [] });
    expect(behind.requests).toHaveLength(0);
    expect(server.authorizations.map((entry) => entry.authToken)).toEqual(["stolen"]);
  });

  it("a deny decision's status is used; an out-of-range one becomes 403", async () => {
    const statuses = [429, 200];
    server = await startProxyServer({
      authorize: () => ({ type: "deny", status: statuses.shift(), message: "slow down" }),
    });
    const post = () =>
      fetch(`${server!.url}/api/stream`, {
        method: "POST",
        headers: GOOD_AUTH,
        body: JSON.stringify({ model: createScriptedModel().model, context: contextOf("x") }),
      });

    const first = await post();
    const second = await post();

    expect([first.status, await first.json()]).toEqual([429, { error: "slow down", code: "denied" }]);
    expect(second.status).toBe(403);
  });

  it("an authorize hook that throws: 500 with a generic message, the error only to onError", async () => {
    server = await startProxyServer({
      authorize: () => {
        throw new Error("token store at 10.0.0.7 unreachable");
      },
    });

    const { result } = await call();

    expect(result).toMatchObject({
      stopReason: "error",
      errorMessage: "Proxy error: Proxy could not authorise the request",
    });
    expect(server.errors.map(({ error, stage }) => [stage, (error as Error).message])).toEqual([
      ["authorize", "token store at 10.0.0.7 unreachable"],
    ]);
  });

  it("an authorize hook that returns nonsense is treated as a failure, not a permission", async () => {
    server = await startProxyServer({ authorize: () => ({ type: "allow" }) as never });

    const raw = await fetch(`${server.url}/api/stream`, {
      method: "POST",
      headers: GOOD_AUTH,
      body: JSON.stringify({ model: createScriptedModel().model, context: contextOf("x") }),
    });

    expect(raw.status).toBe(500);
    expect(server.errors[0].stage).toBe("authorize");
  });

  describe("bad request bodies: 400 with a typed error naming the field, before the host or the model is asked", () => {
    const model = createScriptedModel().model;
    const post = (body: string, init: RequestInit = {}) =>
      fetch(`${server!.url}/api/stream`, { method: "POST", body, ...init, headers: { ...GOOD_AUTH, ...init.headers } });

    it.each([
      ["not JSON", "{model:", 400, { code: "invalid_json" }],
      [
        "empty",
        "",
        400,
        { code: "invalid_json", error: "Proxy request body is empty; expected JSON { model, context, options }" },
      ],
      [
        "an array",
        "[]",
        400,
        { code: "invalid_field", field: "body", error: "Invalid proxy request: body must be an object" },
      ],
      ["no model", JSON.stringify({ context: contextOf("x") }), 400, { code: "invalid_field", field: "model" }],
      [
        "a model without provider",
        JSON.stringify({ model: { ...model, provider: 7 }, context: contextOf("x") }),
        400,
        {
          code: "invalid_field",
          field: "model.provider",
          error: "Invalid proxy request: model.provider must be a string",
        },
      ],
      [
        "no messages",
        JSON.stringify({ model, context: {} }),
        400,
        {
          code: "invalid_field",
          field: "context.messages",
          error: "Invalid proxy request: context.messages must be an array",
        },
      ],
      [
        "an unknown role",
        JSON.stringify({ model, context: { messages: [{ role: "system", content: "x" }] } }),
        400,
        { code: "invalid_field", field: "context.messages[0].role" },
      ],
      [
        "a bad content block",
        JSON.stringify({ model, context: { messages: [{ role: "user", content: [{ type: "text", text: 1 }] }] } }),
        400,
        { code: "invalid_field", field: "context.messages[0].content[0].text" },
      ],
      [
        "a tool without parameters",
        JSON.stringify({ model, context: { ...contextOf("x"), tools: [{ name: "t", description: "d" }] } }),
        400,
        { code: "invalid_field", field: "context.tools[0].parameters" },
      ],
      [
        "an unknown reasoning level",
        JSON.stringify({ model, context: contextOf("x"), options: { reasoning: "max" } }),
        400,
        { code: "invalid_field", field: "options.reasoning" },
      ],
      [
        "header values that are not strings",
        JSON.stringify({ model, context: contextOf("x"), options: { headers: { a: 1 } } }),
        400,
        { code: "invalid_field", field: "options.headers.a" },
      ],
    ])("%s", async (_name, body, status, expected) => {
      const behind = createScriptedModel(["never"]);
      server = await startProxyServer({ streamFn: behind.streamFn });

      const answer = await post(body);

      expect(answer.status).toBe(status);
      expect(await answer.json()).toMatchObject(expected);
      expect(server.authorizations).toHaveLength(0);
      expect(behind.requests).toHaveLength(0);
    });

    it("pi's client shows the field's message", async () => {
      server = await startProxyServer({});
      const { result } = await collect(
        streamProxy(model, { messages: "hello" } as never, { authToken: GOOD_TOKEN, proxyUrl: server.url }),
      );
      expect(result.errorMessage).toBe("Proxy error: Invalid proxy request: context.messages must be an array");
    });

    it("a body over maxBodyBytes is refused 413 without being read to the end", async () => {
      server = await startProxyServer({ maxBodyBytes: 1024 });
      const big = JSON.stringify({ model, context: contextOf("x".repeat(4096)) });

      const announced = await post(big);
      const chunked = await post(new Blob([big]).stream() as never, { duplex: "half" } as RequestInit);

      expect([announced.status, await announced.json()]).toEqual([
        413,
        { error: "Proxy request body exceeds 1024 bytes", code: "body_too_large" },
      ]);
      expect(chunked.status).toBe(413);
    });

    it("GET is 405", async () => {
      server = await startProxyServer({});
      const answer = await fetch(`${server.url}/api/stream`);
      expect([answer.status, await answer.json()]).toEqual([
        405,
        { error: "Proxy requests are POST, not GET", code: "method_not_allowed" },
      ]);
    });

    it("ProxyRequestError is recognised across copies by its marker", () => {
      const error = new ProxyRequestError({ code: "invalid_field", field: "model", message: "m" });
      expect(ProxyRequestError.isInstance(error)).toBe(true);
      expect(ProxyRequestError.isInstance({ ...error })).toBe(true);
      expect(ProxyRequestError.isInstance(new Error("m"))).toBe(false);
      expect(error.status).toBe(400);
    });
  });
});
