/**
 * What a stdio server writes that is no message: a byte-order mark before a
 * line, empty and blank lines. Neither is a message, and neither closes
 * the connection as a protocol error.
 */
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it, onTestFinished } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

/**
 * A stdio MCP server written by hand that starts its output with a
 * byte-order mark (as a .NET server's first write does) and writes an
 * empty line, a blank line and a CRLF blank line between its messages.
 */
function markAndBlankLinesServer(): string {
  return `
    const fs = require("node:fs");
    let first = true;
    const send = (message) => {
      const line = JSON.stringify({ jsonrpc: "2.0", ...message }) + "\\n\\n  \\t\\n\\r\\n";
      fs.writeSync(1, (first ? "\\uFEFF" : "") + line);
      first = false;
    };
    let buffered = "";
    process.stdin.on("data", (chunk) => {
      buffered += chunk;
      for (let end = buffered.indexOf("\\n"); end !== -1; end = buffered.indexOf("\\n")) {
        const request = JSON.parse(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
        if (request.method === "initialize")
          send({ id: request.id, result: { protocolVersion: request.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "marked", version: "1" } } });
        if (request.method === "tools/list")
          send({ id: request.id, result: { tools: [{ name: "ping", inputSchema: { type: "object" } }] } });
        if (request.method === "tools/call") send({ id: request.id, result: { content: [{ type: "text", text: "pong" }] } });
      }
    });
    process.stdin.on("end", () => process.exit(0));
  `;
}

describe("lines that are no messages", { timeout: 15_000 }, () => {
  // Before, the mark made the first answer (the handshake's) "not JSON-RPC" and the connect failed;
  // an empty line between messages closed the connection as a protocol error.
  it("a byte-order mark before the first message and blank lines between messages change nothing", async () => {
    const mcp = createMcpExtension({
      id: "marked",
      server: { command: process.execPath, args: ["-e", markAndBlankLinesServer()] },
    });
    const runtime = await createAgentRuntime({ base: [mcp] });
    onTestFinished(() => runtime.dispose());

    const { outcome, toolResults } = await runMcpTurn({
      runtime,
      script: [response([toolCall("ping", {})]), response([toolCall("ping", {})]), "Both answered."],
    });

    expect(outcome).toEqual({ kind: "completed" });
    expect(toolResults).toEqual([
      expect.objectContaining({ isError: false, text: "pong" }),
      expect.objectContaining({ isError: false, text: "pong" }),
    ]);
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 0 });
  });
});
