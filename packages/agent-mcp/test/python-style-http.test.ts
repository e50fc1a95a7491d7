/*
 * A Streamable HTTP server written by hand the way a Python web app writes
 * one (sse-starlette's event streams: CRLF line ends, a `: ping` comment,
 * `charset=utf-8`; `json.dumps` text with `NaN`, `\u` escapes and null
 * for absent members; the request's id echoed as a string), answering with
 * an event stream or with JSON. Over stdio: `python-style-servers.test.ts`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { runMcpTurn, runtimeOf } from "./support/run-mcp-turn.js";
import { serveForTest } from "./support/test-http-server.js";

type Message = {
  id?: number | string;
  method?: string;
  params?: { protocolVersion?: string; _meta?: { progressToken?: unknown } };
};

/** The text Python's `json.dumps` writes for the server's answer to `request` (its messages before it, then it). */
function answerLines(request: Message): string[] {
  const id = JSON.stringify(String(request.id));
  switch (request.method) {
    case "initialize":
      return [
        `{"jsonrpc": "2.0", "id": ${id}, "result": {"protocolVersion": "${request.params?.protocolVersion}", "capabilities": {"tools": {"listChanged": false}, "logging": null}, "serverInfo": {"name": "weather-py", "version": "1.0.0"}, "instructions": null}, "error": null}`,
      ];
    case "tools/list":
      return [
        `{"jsonrpc": "2.0", "id": ${id}, "result": {"tools": [{"name": "forecast", "title": null, "description": "The weather in Z\\u00fcrich", "inputSchema": {"type": "object", "properties": {}, "required": []}, "outputSchema": null, "annotations": {"readOnlyHint": true, "destructiveHint": null}, "_meta": null}], "nextCursor": null}, "error": null}`,
      ];
    case "tools/call": {
      const token = JSON.stringify(String(request.params?._meta?.progressToken));
      return [
        `{"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": ${token}, "progress": 0.5, "total": null, "message": null}}`,
        `{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "logger": null, "data": "cache miss"}}`,
        `{"jsonrpc": "2.0", "id": ${id}, "result": {"content": [{"type": "text", "text": "Z\\u00fcrich: 21 \\u00b0C \\ud83d\\ude00", "annotations": null}], "structuredContent": {"temp": 21.0, "humidity": NaN, "station": 18446744073709551615}, "isError": false, "_meta": null}, "error": null}`,
      ];
    }
    default:
      return [`{"jsonrpc": "2.0", "id": ${id}, "result": {}, "error": null}`];
  }
}

/** The server: event streams (`sse`) or JSON; notifications get 202, GET 405, as a server without a stream of its own. */
async function startPythonStyleServer(mode: "sse" | "json"): Promise<string> {
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST") return void res.writeHead(req.method === "DELETE" ? 200 : 405).end();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Message;
    if (message.id === undefined || message.method === undefined) return void res.writeHead(202).end();
    const lines = answerLines(message);
    const headers = { "mcp-session-id": "py-session-1" };
    if (mode === "json") {
      res.writeHead(200, { ...headers, "content-type": "application/json; charset=utf-8" }).end(lines.at(-1));
      return;
    }
    res.writeHead(200, { ...headers, "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store" });
    res.write(": ping - 2026-12-07 12:00:00.000000+00:00\r\n\r\n");
    for (const line of lines) res.write(`event: message\r\ndata: ${line}\r\n\r\n`);
    res.end();
  };
  return `${await serveForTest(handle)}/mcp`;
}

describe("a Streamable HTTP server that writes JSON as Python does", { timeout: 15_000 }, () => {
  for (const mode of ["sse", "json"] as const) {
    it(`answering with ${mode === "sse" ? "event streams" : "JSON"}: it connects, lists its tool, and its call's answer reaches the model and the host`, async () => {
      const url = await startPythonStyleServer(mode);
      const logged: unknown[] = [];
      const mcp = createMcpExtension({
        id: "weather",
        server: { url },
        callTimeoutMs: 5_000,
        logger: { debug: (message) => logged.push(message), warn: (message) => logged.push(message) },
      });
      const runtime = await runtimeOf(mcp);

      const started = Date.now();
      const { toolResults } = await runMcpTurn({ runtime, script: [response([toolCall("forecast", {})]), "Sunny."] });

      expect(Date.now() - started).toBeLessThan(5_000);
      expect(mcp.status.tools).toMatchObject([
        { name: "forecast", description: "The weather in Zürich", executionMode: "parallel" },
      ]);
      expect(toolResults.map(({ isError, text, details }) => ({ isError, text, details }))).toEqual([
        {
          isError: false,
          text: "Zürich: 21 °C 😀",
          details: {
            server: "weather",
            tool: "forecast",
            structuredContent: { temp: 21, humidity: null, station: 18446744073709551615 },
          },
        },
      ]);
      // A JSON response holds the answer only: the progress and the log come on event streams.
      expect(logged).toEqual(mode === "sse" ? ['MCP server "weather": cache miss'] : []);
      expect(mcp.status).toMatchObject({ state: "ready", totalRestarts: 0, lastError: undefined });
    });
  }
});
