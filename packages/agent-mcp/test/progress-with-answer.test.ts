/*
 * A fast tool reports its progress and answers at once, so the progress and
 * the answer come to the client together: over stdio in one write (or one
 * batch line), over Streamable HTTP in one write of an event stream or in
 * one JSON batch. The SDK's client forgets a request's progress handler
 * when it reads the answer, and handles a notification only a moment after
 * reading it: such progress was dropped as progress for an unknown token.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { type RuntimeEvent, isProtocolLlmMessage } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { handWrittenServer } from "./fixtures/hand-written-server.js";
import { runMcpTurn, runtimeOf } from "./support/run-mcp-turn.js";
import { serveForTest } from "./support/test-http-server.js";

type Request = { id?: number | string; method?: string; params?: Record<string, any> };

/** The call's progress, 1 of 2 then 2 of 2, and its answer, for `request`. */
function progressAndAnswer(request: Request): unknown[] {
  const progressToken = request.params?._meta?.progressToken;
  const progress = (step: number, message: string) => ({
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { progressToken, progress: step, total: 2, message },
  });
  return [
    progress(1, "indexing"),
    progress(2, "indexed"),
    { jsonrpc: "2.0", id: request.id, result: { content: [{ type: "text", text: "3 files" }] } },
  ];
}

/** A stdio server writing the call's messages in one write: a line each, or one batch line. */
function stdioServer(framing: "lines" | "batch"): string[] {
  const write =
    framing === "lines"
      ? `messages.map((message) => JSON.stringify(message) + "\\n").join("")`
      : `JSON.stringify(messages) + "\\n"`;
  const source = handWrittenServer({
    name: "quick",
    tool: "index",
    setup: `const progressAndAnswer = ${progressAndAnswer.toString()};`,
    onCall: `const messages = progressAndAnswer(request); fs.writeSync(1, ${write});`,
  });
  return ["-e", source];
}

/** A Streamable HTTP server answering each request in one write: an event stream, or JSON (the call's as a batch). */
async function httpServer(body: "events" | "json batch"): Promise<string> {
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST") return void res.writeHead(req.method === "DELETE" ? 200 : 405).end();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Request;
    if (request.id === undefined) return void res.writeHead(202).end();
    const answer = (result: unknown) => [{ jsonrpc: "2.0", id: request.id, result }];
    const messages =
      request.method === "initialize"
        ? answer({
            protocolVersion: request.params?.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: "quick", version: "1" },
          })
        : request.method === "tools/list"
          ? answer({ tools: [{ name: "index", inputSchema: { type: "object" } }] })
          : request.method === "tools/call"
            ? progressAndAnswer(request)
            : answer({});
    const headers = { "mcp-session-id": "quick-1" };
    if (body === "json batch")
      return void res
        .writeHead(200, { ...headers, "content-type": "application/json" })
        .end(JSON.stringify(messages.length === 1 ? messages[0] : messages));
    res.writeHead(200, { ...headers, "content-type": "text/event-stream" });
    res.end(messages.map((message) => `event: message\ndata: ${JSON.stringify(message)}\n\n`).join(""));
  };
  return `${await serveForTest(handle)}/mcp`;
}

/** The tool updates and results of a turn's events, in their order. */
function updatesAndResults(events: readonly RuntimeEvent[]): string[] {
  return events.flatMap((event) => {
    if (event.type === "debug.trace" && event.payload.message === "tool_execution_update") {
      const update = event.payload.attrs as { partialResult: { content: { text: string }[] } };
      return [`update: ${update.partialResult.content[0]!.text}`];
    }
    if (event.type !== "message.persisted") return [];
    return event.payload.messages.flatMap((message) =>
      isProtocolLlmMessage(message) && message.role === "toolResult"
        ? [`result: ${message.content.map((block) => (block.type === "text" ? block.text : "")).join("")}`]
        : [],
    );
  });
}

describe("progress sent together with the call's answer", { timeout: 15_000 }, () => {
  const servers = {
    "over stdio, in one write": async () => ({ command: process.execPath, args: stdioServer("lines") }),
    "over stdio, in one batch": async () => ({ command: process.execPath, args: stdioServer("batch") }),
    "over Streamable HTTP, in one write of an event stream": async () => ({ url: await httpServer("events") }),
    "over Streamable HTTP, in one JSON batch": async () => ({ url: await httpServer("json batch") }),
  };
  for (const [how, server] of Object.entries(servers))
    it(`${how}: reaches the host as tool updates, in order, before the result`, async () => {
      const mcp = createMcpExtension({
        id: "quick",
        server: await server(),
        shutdownGraceMs: 100,
        callTimeoutMs: 5_000,
      });
      const runtime = await runtimeOf(mcp);

      const { events } = await runMcpTurn({ runtime, script: [response([toolCall("index", {})]), "Done."] });

      expect(updatesAndResults(events)).toEqual(["update: indexing (1/2)", "update: indexed (2/2)", "result: 3 files"]);
      expect(mcp.status).toMatchObject({ state: "ready", lastError: undefined });
    });
});

describe("a server that reports progress under the request's id, not the token it was given", () => {
  it("shows each call's progress on that call", { timeout: 15_000 }, async () => {
    const source = handWrittenServer({
      name: "echoing",
      tool: "index",
      onCall: `
        const progressToken = request.id;
        const label = request.params.arguments.folder;
        send({ method: "notifications/progress", params: { progressToken, progress: 1, total: 1, message: "indexed " + label } });
        send({ id: request.id, result: { content: [{ type: "text", text: label + " done" }] } });`,
    });
    const mcp = createMcpExtension({
      id: "echoing",
      server: { command: process.execPath, args: ["-e", source] },
      shutdownGraceMs: 100,
      callTimeoutMs: 5_000,
    });
    const runtime = await runtimeOf(mcp);

    const { events } = await runMcpTurn({
      runtime,
      script: [response([toolCall("index", { folder: "src" }), toolCall("index", { folder: "test" })]), "Done."],
    });

    expect(updatesAndResults(events)).toEqual([
      "update: indexed src (1/1)",
      "result: src done",
      "update: indexed test (1/1)",
      "result: test done",
    ]);
  });
});
