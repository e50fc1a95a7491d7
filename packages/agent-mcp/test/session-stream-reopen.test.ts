/*
 * A Streamable HTTP server that ends the session's event stream (the GET)
 * at once, asking the client to open it again at once (`retry: 0`), as a
 * server does whose stream is cut by a proxy or that closes streams to be
 * polled. The SDK's client opened it again every time, some two hundred
 * GETs a second for the session's life.
 */
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { runMcpTurn, runtimeOf } from "./support/run-mcp-turn.js";
import { initializeResult, readPostedMessage, serveForTest } from "./support/test-http-server.js";

/** The server, and how many GETs it was sent. */
async function startEndingServer(): Promise<{ url: string; gets: () => number }> {
  let gets = 0;
  const origin = await serveForTest(async (req, res) => {
    if (req.method === "GET") {
      gets++;
      res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": "ending-1" });
      return void res.end("retry: 0\n\n");
    }
    if (req.method !== "POST") return void res.writeHead(200).end();
    const request = await readPostedMessage(req);
    if (request.id === undefined) return void res.writeHead(202).end();
    const result =
      request.method === "initialize"
        ? initializeResult(request, "ending")
        : request.method === "tools/list"
          ? { tools: [{ name: "look", inputSchema: { type: "object" } }] }
          : { content: [{ type: "text", text: "looked" }] };
    res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "ending-1" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id: request.id, result }));
  });
  return { url: `${origin}/mcp`, gets: () => gets };
}

describe("a server that ends the session's event stream at once, with retry 0", { timeout: 15_000 }, () => {
  it("has it opened again at most once a second, and the session works", async () => {
    const server = await startEndingServer();
    const mcp = createMcpExtension({ id: "ending", server: { url: server.url } });
    const runtime = await runtimeOf(mcp);

    const { toolResults } = await runMcpTurn({ runtime, script: [response([toolCall("look", {})]), "Done."] });
    expect(toolResults.map((result) => result.text)).toEqual(["looked"]);
    const before = server.gets();
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    // Two a second at most (one the second began with, one a second later); before, hundreds.
    expect(server.gets() - before).toBeLessThanOrEqual(2);
    expect(mcp.status.state).toBe("ready");
  });
});
