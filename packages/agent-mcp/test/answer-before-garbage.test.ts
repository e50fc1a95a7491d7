import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { handWrittenServer } from "./fixtures/hand-written-server.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

/**
 * A server that logs to stdout: it answers each call and, in the same
 * write, a line that is not JSON-RPC ("sent 1 message"), so the client
 * reads both in one chunk.
 */
const LOGS_AFTER_ANSWERING = handWrittenServer({
  name: "logs",
  tool: "send",
  onCall: `fs.writeSync(1, JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { content: [{ type: "text", text: "sent" }] } }) + "\\nsent 1 message\\n");`,
});

describe("an answer read before a line that is not JSON-RPC", () => {
  it("is its call's result (the server did the work and said so); the connection is lost after it", async () => {
    const mcp = createMcpExtension({
      id: "logs",
      server: { command: process.execPath, args: ["-e", LOGS_AFTER_ANSWERING] },
      shutdownGraceMs: 100,
    });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({ runtime, script: [response([toolCall("send", {})]), "Done."] });

    expect(turn.toolResults.map(({ text, isError }) => ({ text, isError }))).toEqual([
      { text: "sent", isError: false },
    ]);
    expect(mcp.status.state).toBe("failed");
    expect(mcp.status.lastError).toMatchObject({ code: "protocol_error" });
    expect(mcp.status.lastError?.message).toMatch(/wrote a message that is not JSON-RPC/);
    await runtime.dispose();
  });
});
