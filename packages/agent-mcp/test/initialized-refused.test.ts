/*
 * A Streamable HTTP server that answers `initialize` and then refuses the
 * notification that ends the handshake (`notifications/initialized`) with
 * an HTTP status, as a server behind a gateway that does not route
 * notifications, or one that lost the session it just made. Before, the
 * connect failed with "could not be reached for initialize (HTTP 400)",
 * naming the request the server had answered.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it, onTestFinished } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { connectFailure } from "./support/connect-failure.js";
import { initializeResult, readPostedMessage, serveForTest } from "./support/test-http-server.js";

/** Answers `initialize` with JSON, refuses every notification with `status` and `body`; the methods it read, in order. */
async function startRefusingServer(status: number, body: string): Promise<{ url: string; methods: string[] }> {
  const methods: string[] = [];
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST") return void res.writeHead(req.method === "DELETE" ? 200 : 405).end();
    const message = await readPostedMessage(req);
    methods.push(String(message.method));
    if (message.id === undefined) return void res.writeHead(status, { "content-type": "text/plain" }).end(body);
    res
      .writeHead(200, { "content-type": "application/json", "mcp-session-id": "gw-1" })
      .end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: initializeResult(message, "gateway") }));
  };
  return { url: `${await serveForTest(handle)}/mcp`, methods };
}

describe("a server that refuses the initialized notification", { timeout: 10_000 }, () => {
  it("fails the connect naming the refused notification, with the server's text", async () => {
    const server = await startRefusingServer(400, "notifications are not routed here");
    const mcp = createMcpExtension({ id: "gateway", server: { url: server.url }, restart: { maxRestarts: 0 } });
    onTestFinished(() => mcp.dispose());

    const error = await connectFailure(mcp);

    expect(error).toMatchObject({
      code: "connect_failed",
      message:
        'MCP server "gateway" could not connect: answered initialize, then refused notifications/initialized (HTTP 400): Error POSTing to endpoint: notifications are not routed here',
    });
    expect(server.methods).toEqual(["initialize", "notifications/initialized"]);
    expect(mcp.status).toMatchObject({ state: "gave_up", lastError: { code: "connect_failed" } });
  });
});
