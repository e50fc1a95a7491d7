import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { handWrittenServer } from "./fixtures/hand-written-server.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

/**
 * A server that logs to stdout: it answers each call and, in the same
 * write, a line that is no JSON-RPC message ("sent 1 message"), so the
 * client reads both in one chunk.
 */
const LOGS_AFTER_ANSWERING = handWrittenServer({
  name: "logs",
  tool: "send",
  onCall: `fs.writeSync(1, JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { content: [{ type: "text", text: "sent" }] } }) + "\\nsent 1 message\\n");`,
});

describe("an answer read before a line that is no JSON-RPC message", () => {
  // Before, the line after the answer closed the connection (a protocol error), and the next call found the server down.
  it("is its call's result, the line is dropped, and the connection stays for the next call", async () => {
    const warnings: string[] = [];
    const mcp = createMcpExtension({
      id: "logs",
      server: { command: process.execPath, args: ["-e", LOGS_AFTER_ANSWERING] },
      shutdownGraceMs: 100,
      logger: { warn: (message) => void warnings.push(message) },
    });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({
      runtime,
      script: [response([toolCall("send", {})]), response([toolCall("send", {})]), "Done."],
    });

    expect(turn.toolResults.map(({ text, isError }) => ({ text, isError }))).toEqual([
      { text: "sent", isError: false },
      { text: "sent", isError: false },
    ]);
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 0 });
    expect(mcp.status.lastError).toBeUndefined();
    expect(warnings).toEqual([
      expect.stringMatching(
        /^MCP server "logs" wrote to its stdout a line that is no JSON-RPC message; .*: sent 1 message$/,
      ),
    ]);
    await runtime.dispose();
  });
});
