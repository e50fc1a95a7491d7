/*
 * A Streamable HTTP server that answers each request on an event stream and
 * keeps the stream open after the answer (the protocol says a server SHOULD
 * end it then; a server written by hand with a keep-alive loop, or one
 * waiting for more to send, does not). Before, every call's stream, and its
 * socket, stayed open for the session's life and past the runtime's
 * dispose: thirty calls, thirty open connections.
 */
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { waitUntil } from "./fixtures/stdio-fixture.js";
import { runMcpTurn, runtimeOf } from "./support/run-mcp-turn.js";
import { serveForTest } from "./support/test-http-server.js";

/** The server, and how many of its answering event streams are still open. */
async function startHoldingServer(): Promise<{ url: string; openStreams: () => number }> {
  let open = 0;
  const origin = await serveForTest(async (req, res) => {
    if (req.method !== "POST") return void res.writeHead(req.method === "DELETE" ? 200 : 405).end();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (request.id === undefined) return void res.writeHead(202).end();
    const result =
      request.method === "initialize"
        ? {
            protocolVersion: request.params.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: "holding", version: "1" },
          }
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
