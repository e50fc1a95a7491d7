/*
 * A Streamable HTTP server that answers each request on an event stream and
 * keeps the stream open after the answer (the protocol says a server SHOULD
 * end it then; a server written by hand with a keep-alive loop, or one
 * waiting for more to send, does not). Before, every call's stream, and its
 * socket, stayed open for the session's life and past the runtime's
 * dispose: thirty calls, thirty open connections.
 */
import { InMemoryEventStore } from "@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { waitUntil } from "./fixtures/stdio-fixture.js";
import { runMcpTurn, runtimeOf } from "./support/run-mcp-turn.js";
import { serveSdkSessions } from "./support/sdk-session-server.js";
import { initializeResult, readPostedMessage, serveForTest } from "./support/test-http-server.js";

/** The server, and how many of its answering event streams are still open. */
async function startHoldingServer(): Promise<{ url: string; openStreams: () => number }> {
  let open = 0;
  const origin = await serveForTest(async (req, res) => {
    if (req.method !== "POST") return void res.writeHead(req.method === "DELETE" ? 200 : 405).end();
    const request = await readPostedMessage(req);
    if (request.id === undefined) return void res.writeHead(202).end();
    const result =
      request.method === "initialize"
        ? initializeResult(request, "holding")
        : request.method === "tools/list"
          ? { tools: [{ name: "look", inputSchema: { type: "object" } }] }
          : { content: [{ type: "text", text: `looked ${request.id}` }] };
    res.writeHead(200, { "mcp-session-id": "holding-1", "content-type": "text/event-stream" });
    res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: request.id, result })}\n\n`);
    // The stream is never ended by the server.
    open++;
    res.on("close", () => open--);
  });
  return { url: `${origin}/mcp`, openStreams: () => open };
}

describe("a server that keeps each answer's event stream open", { timeout: 15_000 }, () => {
  it("has each stream ended by the client once its answer came: calls get their answers, no stream is left open", async () => {
    const server = await startHoldingServer();
    const mcp = createMcpExtension({ id: "holding", server: { url: server.url }, callTimeoutMs: 5_000 });
    const runtime = await runtimeOf(mcp);

    for (const turnId of ["t1", "t2", "t3"]) {
      const { toolResults } = await runMcpTurn({
        runtime,
        turnId,
        script: [response(Array.from({ length: 10 }, () => toolCall("look", {}))), "Done."],
      });
      expect(toolResults.map((result) => [result.isError, result.text.startsWith("looked ")])).toEqual(
        Array.from({ length: 10 }, () => [false, true]),
      );
    }

    // The server sees each stream close a moment after the client ended it.
    await waitUntil(() => (server.openStreams() === 0 ? true : undefined), 2_000);
    expect(mcp.status).toMatchObject({ state: "ready", lastError: undefined });
  });
});

/**
 * A server with sessions on the SDK's Streamable HTTP transport with an
 * event store (so each answer's stream has event ids and may be resumed),
 * written with the SDK's low-level `Server`: `refuse` answers with a
 * JSON-RPC error, a resource read too. The SDK's client resumes a stream
 * that ended without a *result* (an error answer is none to it) with a GET
 * carrying `Last-Event-ID`, which this server holds open.
 */
async function startResumableServer(): Promise<{ url: string; openResponses: () => string[] }> {
  const open = new Set<string>();
  let requests = 0;
  const origin = await serveSdkSessions({
    transport: { eventStore: new InMemoryEventStore(), retryInterval: 10 },
    onRequest: (req, res) => {
      const name = `${++requests} ${req.method}${req.headers["last-event-id"] === undefined ? "" : " Last-Event-ID"}`;
      open.add(name);
      res.on("close", () => open.delete(name));
    },
    connect: async (transport) => {
      const server = new Server({ name: "resumable", version: "1" }, { capabilities: { tools: {}, resources: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: [
          { name: "look", inputSchema: { type: "object" } },
          { name: "refuse", inputSchema: { type: "object" } },
        ],
      }));
      server.setRequestHandler(CallToolRequestSchema, (request) => {
        if (request.params.name === "refuse") throw new McpError(ErrorCode.InvalidParams, "refused on purpose");
        return { content: [{ type: "text", text: "looked" }] };
      });
      server.setRequestHandler(ReadResourceRequestSchema, (request) => {
        throw new McpError(ErrorCode.InvalidParams, `no resource ${request.params.uri}`);
      });
      await server.connect(transport);
    },
  });
  return { url: `${origin}/mcp`, openResponses: () => [...open] };
}

describe("a server with an event store that answers with JSON-RPC errors", { timeout: 15_000 }, () => {
  it("has no stream resumed after an error answer: only the session's own stream stays open", async () => {
    const server = await startResumableServer();
    const mcp = createMcpExtension({ id: "resumable", server: { url: server.url }, callTimeoutMs: 5_000 });
    const runtime = await runtimeOf(mcp);

    for (const turnId of ["t1", "t2"]) {
      const { toolResults } = await runMcpTurn({
        runtime,
        turnId,
        script: [response([toolCall("refuse", {}), toolCall("look", {}), toolCall("refuse", {})]), "Done."],
      });
      expect(toolResults.map((result) => [result.isError, result.text])).toEqual([
        [
          true,
          'MCP server "resumable" answered tools/call "refuse" with an error: MCP error -32602: refused on purpose',
        ],
        [false, "looked"],
        [
          true,
          'MCP server "resumable" answered tools/call "refuse" with an error: MCP error -32602: refused on purpose',
        ],
      ]);
    }
    await expect(mcp.readResource("file:///missing")).rejects.toMatchObject({ code: "server_error" });

    // The SDK would resume each errored stream 10 ms (the server's retry interval) after it ended.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.openResponses()).toEqual([expect.stringMatching(/^\d+ GET$/)]);
    expect(mcp.status.state).toBe("ready");
  });
});

/**
 * An SDK server with sessions (`McpServer`), answering on event streams or
 * with JSON, with an event store or none: `wait` runs until the server gets
 * the call's cancellation, `stubborn` never ends, `look` answers. The
 * server answers no cancelled request (as the protocol asks), so each
 * cancelled call's POST stayed open, a socket on both sides, until dispose.
 */
async function startCancellableServer(options: { json: boolean; eventStore: boolean }) {
  const open = new Set<string>();
  let requests = 0;
  const origin = await serveSdkSessions({
    transport: {
      enableJsonResponse: options.json,
      ...(options.eventStore && { eventStore: new InMemoryEventStore(), retryInterval: 10 }),
    },
    onRequest: (req, res) => {
      const name = `${++requests} ${req.method}${req.headers["last-event-id"] === undefined ? "" : " Last-Event-ID"}`;
      open.add(name);
      res.on("close", () => open.delete(name));
    },
    connect: async (transport) => {
      const server = new McpServer({ name: "cancellable", version: "1" });
      server.registerTool("wait", {}, async (extra) => {
        await new Promise((resolve) => extra.signal.addEventListener("abort", resolve));
        return { content: [{ type: "text", text: "stopped" }] };
      });
      server.registerTool("stubborn", {}, () => new Promise<never>(() => {}));
      server.registerTool("look", {}, () => ({ content: [{ type: "text", text: "looked" }] }));
      await server.connect(transport);
    },
  });
  return { url: `${origin}/mcp`, openResponses: () => [...open] };
}

describe("calls the client cancels, on a server with sessions", { timeout: 15_000 }, () => {
  for (const options of [
    { json: false, eventStore: false },
    { json: false, eventStore: true },
    { json: true, eventStore: false },
  ])
    it(`have their POST closed, not resumed (${options.json ? "JSON answers" : "event streams"}${options.eventStore ? ", event store" : ""}): only the session's own stream stays open`, async () => {
      const server = await startCancellableServer(options);
      const mcp = createMcpExtension({ id: "cancellable", server: { url: server.url }, callTimeoutMs: 300 });
      const runtime = await runtimeOf(mcp);

      const timedOut = await runMcpTurn({
        runtime,
        script: [response([toolCall("wait", {}), toolCall("stubborn", {}), toolCall("wait", {})]), "Done."],
      });
      expect(timedOut.toolResults.map((result) => result.text)).toEqual([
        'MCP server "cancellable" did not answer tools/call "wait" within 300 ms',
        'MCP server "cancellable" did not answer tools/call "stubborn" within 300 ms',
        'MCP server "cancellable" did not answer tools/call "wait" within 300 ms',
      ]);
      const controller = new AbortController();
      const aborted = runMcpTurn({
        runtime,
        turnId: "t2",
        signal: controller.signal,
        script: [response([toolCall("stubborn", {})]), "Done."],
      });
      setTimeout(() => controller.abort(), 100);
      expect((await aborted).outcome.kind).toBe("aborted");

      // The cancelled calls' responses are closed (how soon the server sees it is the machine's), and stay closed:
      // a resumed stream would be asked for 10 ms (the server's retry interval) after it ended.
      const onlyTheSessionStream = () => {
        const open = server.openResponses();
        return open.length === 1 && /^\d+ GET$/.test(open[0]!) ? true : undefined;
      };
      await waitUntil(onlyTheSessionStream).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(server.openResponses()).toEqual([expect.stringMatching(/^\d+ GET$/)]);
      const later = await runMcpTurn({ runtime, turnId: "t3", script: [response([toolCall("look", {})]), "Done."] });
      expect(later.toolResults.map((result) => result.text)).toEqual(["looked"]);
      expect(mcp.status.state).toBe("ready");
    });
});
