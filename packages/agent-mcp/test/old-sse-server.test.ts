/*
 * A server of the HTTP+SSE transport of protocol 2024-11-05, which
 * Streamable HTTP replaced and which this client does not speak, as
 * FastMCP's `sse` transport serves it (Starlette): GET /sse opens an event
 * stream whose first event, `endpoint`, names where to POST messages; a
 * POST to /sse is refused with 405. Before, a host configured with its URL
 * read only `could not be reached for initialize (HTTP 405): Error POSTing
 * to endpoint: Method Not Allowed`.
 */
import { describe, expect, it, onTestFinished } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { connectFailure } from "./support/connect-failure.js";
import { serveForTest } from "./support/test-http-server.js";

/** The server's base URL; `/sse` is its event stream, `/messages/` its message endpoint, nothing else is found. */
async function startOldSseServer(): Promise<string> {
  return serveForTest((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/sse" && req.method === "GET") {
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store" });
      res.write("event: endpoint\r\ndata: /messages/?session_id=0d1f3a\r\n\r\n");
      return;
    }
    if (path === "/messages/" && req.method === "POST") return void res.writeHead(202).end("Accepted");
    if (path === "/sse") return void res.writeHead(405, { "content-type": "text/plain" }).end("Method Not Allowed");
    res.writeHead(404, { "content-type": "text/plain" }).end("Not Found");
  });
}

describe("a server of the old HTTP+SSE transport", { timeout: 10_000 }, () => {
  it("fails the connect with an error that says so, naming its message endpoint", async () => {
    const base = await startOldSseServer();
    const mcp = createMcpExtension({ id: "legacy", server: { url: `${base}/sse` }, restart: { maxRestarts: 0 } });
    onTestFinished(() => mcp.dispose());

    const error = await connectFailure(mcp);

    expect(error).toMatchObject({
      code: "connect_failed",
      message:
        'MCP server "legacy" could not connect: could not be reached for initialize (HTTP 405): Error POSTing to endpoint: Method Not Allowed; it speaks the HTTP+SSE transport of protocol 2024-11-05 (a GET of its URL opened an event stream naming its message endpoint "/messages/?session_id=0d1f3a"), which this client does not: server.url must be its Streamable HTTP endpoint (often /mcp)',
    });
    expect(mcp.status).toMatchObject({ state: "gave_up", lastError: { code: "connect_failed" } });
  });

  it("a URL where it serves nothing is refused as before, without a word of the old transport", async () => {
    const base = await startOldSseServer();
    const mcp = createMcpExtension({ id: "legacy", server: { url: `${base}/mcp` }, restart: { maxRestarts: 0 } });
    onTestFinished(() => mcp.dispose());

    const error = await connectFailure(mcp);

    expect(error).toMatchObject({
      code: "connect_failed",
      message:
        'MCP server "legacy" could not connect: could not be reached for initialize (HTTP 404): Error POSTing to endpoint: Not Found',
    });
  });
});
