import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { streamProxy } from "../../src/index.js";
import { createScriptedModel } from "../../src/testing/index.js";
import { collect, contextOf, eventShapes } from "./proxy-test-server.js";

/** Our client against a hand-written server on 127.0.0.1, for what our own server never sends. */
describe("streamProxy client", () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = undefined;
  });

  const model = createScriptedModel().model;
  const usage = {
    input: 1,
    output: 2,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 3,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };

  async function serve(
    handle: (request: IncomingMessage, body: string, response: ServerResponse) => void,
  ): Promise<string> {
    server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => handle(request, body, response));
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  const sse =
    (...lines: string[]) =>
    async () =>
      serve((_request, _body, response) => {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.end(lines.join(""));
      });

  const data = (event: object) => `data: ${JSON.stringify(event)}\n`;

  it("sends POST <proxyUrl>/api/stream with the bearer token and only the serialisable options", async () => {
    let seen: { method?: string; url?: string; authorization?: string; contentType?: string; body?: unknown } = {};
    const url = await serve((request, body, response) => {
      seen = {
        method: request.method,
        url: request.url,
        authorization: request.headers.authorization,
        contentType: request.headers["content-type"],
        body: JSON.parse(body),
      };
      response.writeHead(200).end(data({ type: "done", reason: "stop", usage }));
    });

    await collect(
      streamProxy(model, contextOf("Hi"), {
        authToken: "t0k",
        proxyUrl: url,
        temperature: 0.5,
        apiKey: "secret",
        timeoutMs: 5,
      } as never),
    );

    expect(seen).toEqual({
      method: "POST",
      url: "/api/stream",
      authorization: "Bearer t0k",
      contentType: "application/json",
      body: { model, context: contextOf("Hi"), options: { temperature: 0.5 } },
    });
  });

  it.each([
    ["a JSON error body", 503, "application/json", '{"error":"quota exhausted"}', "Proxy error: quota exhausted"],
    ["a body that is not JSON", 502, "text/plain", "upstream down", "Proxy error: 502 Bad Gateway"],
    ["JSON without error", 500, "application/json", '{"message":"x"}', "Proxy error: 500 Internal Server Error"],
  ])("a non-2xx answer with %s", async (_name, status, contentType, body, message) => {
    const url = await serve((_request, _body, response) =>
      response.writeHead(status, { "content-type": contentType }).end(body),
    );
    const { events, result } = await collect(streamProxy(model, contextOf("Hi"), { authToken: "t", proxyUrl: url }));
    expect(eventShapes(events)).toEqual(["error"]);
    expect(result).toMatchObject({
      stopReason: "error",
      errorMessage: message,
      api: model.api,
      provider: model.provider,
      model: model.id,
    });
  });

  it("ignores comments, other fields and unknown event types; reads CRLF lines and a last line without a newline", async () => {
    const url = await sse(
      ": keep-alive\n",
      "event: message\n",
      data({ type: "start" }),
      data({ type: "text_start", contentIndex: 0 }),
      `data: ${JSON.stringify({ type: "text_delta", contentIndex: 0, delta: "Hi" })}\r\n`,
      data({ type: "sparkle", contentIndex: 0 }),
      data({ type: "toolcall_end", contentIndex: 0 }),
      data({ type: "text_end", contentIndex: 0 }),
      `data: ${JSON.stringify({ type: "done", reason: "stop", usage })}`,
    )();
    const { events, result } = await collect(streamProxy(model, contextOf("Hi"), { authToken: "t", proxyUrl: url }));
    expect(eventShapes(events)).toEqual(["start", "text_start", 'text_delta "Hi"', "text_end", "done"]);
    expect(result).toMatchObject({ stopReason: "stop", usage, content: [{ type: "text", text: "Hi" }] });
  });

  it("rebuilds tool call arguments from the deltas and drops partialJson at the end", async () => {
    const url = await sse(
      data({ type: "start" }),
      data({ type: "toolcall_start", contentIndex: 0, id: "c1", toolName: "read" }),
      data({ type: "toolcall_delta", contentIndex: 0, delta: '{"path":"a' }),
      data({ type: "toolcall_delta", contentIndex: 0, delta: '.txt"}' }),
      data({ type: "toolcall_end", contentIndex: 0 }),
      data({ type: "done", reason: "toolUse", usage }),
    )();
    const { events, result } = await collect(streamProxy(model, contextOf("Hi"), { authToken: "t", proxyUrl: url }));
    const firstDelta = events[2];
    expect(firstDelta.type === "toolcall_delta" && firstDelta.partial.content[0]).toMatchObject({
      arguments: { path: "a.txt" },
    });
    const end = events[4];
    expect(end.type === "toolcall_end" && end.toolCall).toEqual({
      type: "toolCall",
      id: "c1",
      name: "read",
      arguments: { path: "a.txt" },
    });
    expect(result.content).toEqual([{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a.txt" } }]);
    expect(result.stopReason).toBe("toolUse");
  });

  it.each([
    [
      "a delta for a block of another kind",
      [data({ type: "start" }), data({ type: "text_delta", contentIndex: 0, delta: "x" })],
      "Received text_delta for non-text content",
    ],
    ["a line that is not JSON", [data({ type: "start" }), "data: {oops\n"], /JSON/],
    [
      "a stream that closes before done or error",
      [data({ type: "start" })],
      "Proxy stream ended without a done or error event",
    ],
  ])("%s ends the stream with an error event", async (_name, lines, message) => {
    const url = await sse(...lines)();
    const { events, result } = await collect(streamProxy(model, contextOf("Hi"), { authToken: "t", proxyUrl: url }));
    expect(events.at(-1)?.type).toBe("error");
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toMatch(message);
  });

  const started = [data({ type: "start" }), data({ type: "text_start", contentIndex: 0 })];
  it.each([
    ["an event that is not an object", ["data: null\n"], "an event must be an object with a string type, got null"],
    [
      "an event without a type",
      [data({ delta: "x" })],
      'an event must be an object with a string type, got {"delta":"x"}',
    ],
    [
      "a block index past the next block",
      [data({ type: "start" }), data({ type: "text_start", contentIndex: 5 })],
      "text_start: contentIndex must be an integer from 0 to 0, got 5",
    ],
    [
      "a negative block index",
      [...started, data({ type: "thinking_start", contentIndex: -1 })],
      "thinking_start: contentIndex must be an integer from 0 to 1, got -1",
    ],
    [
      "a block index that is a string",
      [...started, data({ type: "text_delta", contentIndex: "0", delta: "x" })],
      'text_delta: contentIndex must be a block index, got "0"',
    ],
    [
      "a delta that is no string",
      [...started, data({ type: "text_delta", contentIndex: 0, delta: 5 })],
      "text_delta: delta must be a string, got 5",
    ],
    [
      "a tool call without an id",
      [data({ type: "start" }), data({ type: "toolcall_start", contentIndex: 0, toolName: "read" })],
      "toolcall_start: id must be a string, got undefined",
    ],
    [
      "an unknown stop reason",
      [...started, data({ type: "done", reason: "banana", usage })],
      'done: reason must be "stop", "length" or "toolUse", got "banana"',
    ],
    ["done without usage", [...started, data({ type: "done", reason: "stop" })], "done: usage must be an object"],
    [
      "a usage without its numbers",
      [...started, data({ type: "done", reason: "stop", usage: { ...usage, output: "2" } })],
      'done: usage.output must be a number, got "2"',
    ],
  ])(
    "%s ends the stream with an error naming the field; the message keeps pi-ai's shape",
    async (_name, lines, message) => {
      const url = await sse(...lines)();
      const { events, result } = await collect(streamProxy(model, contextOf("Hi"), { authToken: "t", proxyUrl: url }));
      expect(events.at(-1)?.type).toBe("error");
      expect(result.stopReason).toBe("error");
      expect(result.errorMessage).toContain("Malformed proxy event");
      expect(result.errorMessage).toContain(message);
      expect(result.usage).toMatchObject({ input: 0, output: 0, totalTokens: 0 });
      expect(Object.keys(result.content)).toEqual(result.content.map((_block, index) => String(index)));
      for (const block of result.content) expect(block).toMatchObject({ type: expect.any(String) });
    },
  );

  it("an error event without usage keeps the server's error text", async () => {
    const url = await sse(data({ type: "start" }), data({ type: "error", reason: "error", errorMessage: "boom" }))();
    const { result } = await collect(streamProxy(model, contextOf("Hi"), { authToken: "t", proxyUrl: url }));
    expect(result).toMatchObject({ stopReason: "error", errorMessage: "boom", usage: { input: 0, totalTokens: 0 } });
  });

  it("an unreachable server ends the stream with an error event, never a rejection", async () => {
    const url = await serve(() => undefined);
    server!.closeAllConnections();
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    const { events, result } = await collect(streamProxy(model, contextOf("Hi"), { authToken: "t", proxyUrl: url }));
    expect(eventShapes(events)).toEqual(["error"]);
    expect(result).toMatchObject({ stopReason: "error", errorMessage: "fetch failed" });
  });
});
