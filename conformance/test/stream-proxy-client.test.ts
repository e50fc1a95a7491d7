import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  streamProxy as piStreamProxy,
  type ProxyAssistantMessageEvent as PiProxyEvent,
  type ProxyStreamOptions as PiProxyStreamOptions,
} from "@mariozechner/pi-agent-core";
import type { AssistantMessageEvent, AssistantMessageEventStream, Context } from "@mariozechner/pi-ai";
import {
  streamProxy as turnkitStreamProxy,
  type ProxyAssistantMessageEvent,
  type ProxyStreamOptions,
} from "@turnkit/agent-loop";
import { createScriptedModel } from "@turnkit/agent-loop/testing";
import { afterEach, describe, expect, it, vi } from "vitest";

/**
 * The two `streamProxy` clients side by side, below the loop: the same
 * bytes from a hand-written server on 127.0.0.1, including what our own
 * server never sends, must give the same events with the same partial
 * message at every event. (Where ours deliberately goes further, a stream
 * that closes before `done` or `error`, pi never settles: that case is in
 * the package's own tests.)
 */

const model = createScriptedModel().model;
const context: Context = { messages: [{ role: "user", content: "Hi", timestamp: 1 }] };
const usage = {
  input: 1,
  output: 2,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 3,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const data = (event: object) => `data: ${JSON.stringify(event)}\n`;

type Answer = (response: ServerResponse) => void;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

async function serve(answer: Answer): Promise<string> {
  server = createServer((request, response) => {
    request.resume();
    request.on("end", () => answer(response));
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Each event with a snapshot of its message at that moment, without the client's timestamp. */
async function record(
  stream: AssistantMessageEventStream,
  onEvent: (event: AssistantMessageEvent) => void = () => undefined,
) {
  const snapshots: unknown[] = [];
  for await (const event of stream) {
    const { timestamp: _timestamp, ...message } = structuredClone(
      "partial" in event ? event.partial : event.type === "done" ? event.message : event.error,
    );
    const fields = Object.fromEntries(
      Object.entries(event).filter(([key]) => !["partial", "message", "error"].includes(key)),
    );
    snapshots.push({ ...structuredClone(fields), message });
    onEvent(event);
  }
  const { timestamp: _timestamp, ...result } = await stream.result();
  return { snapshots, result };
}

const sse =
  (...lines: string[]): Answer =>
  (response) => {
    response.writeHead(200, { "content-type": "text/event-stream" });
    response.end(lines.join(""));
  };

const CASES: [string, Answer][] = [
  [
    "thinking and text with signatures",
    sse(
      data({ type: "start" }),
      data({ type: "thinking_start", contentIndex: 0 }),
      data({ type: "thinking_delta", contentIndex: 0, delta: "Hmm" }),
      data({ type: "thinking_end", contentIndex: 0, contentSignature: "sig-a" }),
      data({ type: "text_start", contentIndex: 1 }),
      data({ type: "text_delta", contentIndex: 1, delta: "Hello" }),
      data({ type: "text_delta", contentIndex: 1, delta: " you" }),
      data({ type: "text_end", contentIndex: 1, contentSignature: "sig-b" }),
      data({ type: "done", reason: "stop", usage }),
    ),
  ],
  [
    "a tool call built from deltas",
    sse(
      data({ type: "start" }),
      data({ type: "toolcall_start", contentIndex: 0, id: "c1", toolName: "read" }),
      data({ type: "toolcall_delta", contentIndex: 0, delta: '{"path":"a' }),
      data({ type: "toolcall_delta", contentIndex: 0, delta: '.txt","n":[1,' }),
      data({ type: "toolcall_delta", contentIndex: 0, delta: "2]}" }),
      data({ type: "toolcall_end", contentIndex: 0 }),
      data({ type: "done", reason: "toolUse", usage }),
    ),
  ],
  [
    "a server error event",
    sse(data({ type: "start" }), data({ type: "error", reason: "error", errorMessage: "overloaded", usage })),
  ],
  ["an error event without a message", sse(data({ type: "error", reason: "error", usage }))],
  [
    "a delta for a block of another kind",
    sse(
      data({ type: "start" }),
      data({ type: "thinking_start", contentIndex: 0 }),
      data({ type: "text_delta", contentIndex: 0, delta: "x" }),
    ),
  ],
  [
    "an end for a block of another kind",
    sse(
      data({ type: "start" }),
      data({ type: "text_start", contentIndex: 0 }),
      data({ type: "thinking_end", contentIndex: 0 }),
    ),
  ],
  [
    "a toolcall_end for a text block (skipped)",
    sse(
      data({ type: "start" }),
      data({ type: "text_start", contentIndex: 0 }),
      data({ type: "toolcall_end", contentIndex: 0 }),
      data({ type: "done", reason: "stop", usage }),
    ),
  ],
  ["a line that is not JSON", sse(data({ type: "start" }), "data: {nope\n")],
  [
    "comments, other fields, CRLF",
    sse(
      ": ping\n",
      "event: x\n",
      `${data({ type: "start" }).trimEnd()}\r\n`,
      "\n",
      data({ type: "done", reason: "length", usage }),
    ),
  ],
  [
    "a JSON error answer",
    (response) => response.writeHead(429, { "content-type": "application/json" }).end('{"error":"slow down"}'),
  ],
  ["a plain error answer", (response) => response.writeHead(502).end("bad gateway")],
];

/** True only when `A` and `B` are assignable both ways and have the same keys (optional ones included); checked by this package's typecheck. */
type SameType<A, B> = [A] extends [B]
  ? [B] extends [A]
    ? [keyof A] extends [keyof B]
      ? [keyof B] extends [keyof A]
        ? true
        : false
      : false
    : false
  : false;

/** `true` for each event type whose variant has the same shape in both packages. */
type SameEventVariants = {
  [T in PiProxyEvent["type"]]: SameType<
    Extract<ProxyAssistantMessageEvent, { type: T }>,
    Extract<PiProxyEvent, { type: T }>
  >;
};

describe("streamProxy: pi-agent-core 0.73.1's client and ours on the same bytes", () => {
  it("exports pi's proxy types with the same shapes", () => {
    const sameEvents: SameType<ProxyAssistantMessageEvent["type"], PiProxyEvent["type"]> = true;
    const sameVariants: Record<PiProxyEvent["type"], true> = {} as SameEventVariants;
    void sameVariants;
    const sameOptions: SameType<ProxyStreamOptions, PiProxyStreamOptions> = true;
    const sameFunction: SameType<typeof turnkitStreamProxy, typeof piStreamProxy> = true;
    expect([sameEvents, sameOptions, sameFunction]).toEqual([true, true, true]);
  });

  it.each(CASES)("%s", async (_name, answer) => {
    const url = await serve(answer);
    const pi = await record(piStreamProxy(model, context, { authToken: "t", proxyUrl: url }));
    const turnkit = await record(turnkitStreamProxy(model, context, { authToken: "t", proxyUrl: url }));
    expect(turnkit).toEqual(pi);
    expect(pi.snapshots.length).toBeGreaterThan(0);
  });

  it("an unknown event type is skipped by both (pi also warns on the console)", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      const url = await serve(
        sse(data({ type: "start" }), data({ type: "sparkle" }), data({ type: "done", reason: "stop", usage })),
      );
      const pi = await record(piStreamProxy(model, context, { authToken: "t", proxyUrl: url }));
      const turnkit = await record(turnkitStreamProxy(model, context, { authToken: "t", proxyUrl: url }));
      expect(turnkit).toEqual(pi);
      expect(turnkit.snapshots).toHaveLength(2);
    } finally {
      warn.mockRestore();
    }
  });

  it("an abort mid-stream ends both with 'Request aborted by user' and what had streamed", async () => {
    const url = await serve((response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write(
        data({ type: "start" }) +
          data({ type: "text_start", contentIndex: 0 }) +
          data({ type: "text_delta", contentIndex: 0, delta: "Counting" }),
      );
    });
    const run = async (streamProxy: typeof piStreamProxy) => {
      const controller = new AbortController();
      return record(
        streamProxy(model, context, { authToken: "t", proxyUrl: url, signal: controller.signal }),
        (event) => {
          if (event.type === "text_delta") controller.abort();
        },
      );
    };
    const pi = await run(piStreamProxy);
    const turnkit = await run(turnkitStreamProxy);
    expect(turnkit).toEqual(pi);
    expect(turnkit.result).toMatchObject({
      stopReason: "aborted",
      errorMessage: "Request aborted by user",
      content: [{ type: "text", text: "Counting" }],
    });
  });
});
