/*
 * Messages a stdio server writes that the protocol's schema refuses, but
 * whose place the client still knows: a request of the server's own whose
 * id is an integer past 2^53 (a Go server numbering its requests by the
 * clock in nanoseconds), and an answer to a request the client made whose
 * result is no object. Neither puts the stream out of step, so neither
 * costs the session (over Streamable HTTP: `http-odd-messages.test.ts`).
 */
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { handWrittenServer } from "./fixtures/hand-written-server.js";
import { runMcpTurn, runtimeOf } from "./support/run-mcp-turn.js";

const ODD = handWrittenServer({
  name: "odd",
  tool: "act",
  onCall: `
    const mode = request.params.arguments.mode;
    if (mode === "big_id") fs.writeSync(1, '{"jsonrpc":"2.0","id":1733572800123456789,"method":"ping"}\\n');
    if (mode === "broken") send({ id: request.id, result: "done" });
    else send({ id: request.id, result: { content: [{ type: "text", text: mode + " by " + process.pid }] } });`,
});

describe("a stdio server's message that the schema refuses but the client can place", { timeout: 15_000 }, () => {
  it("a request of its own with an id past 2^53 is dropped, and an answer whose result is no object fails only its call, at once: the process serves on", async () => {
    const warnings: string[] = [];
    const mcp = createMcpExtension({
      id: "odd",
      server: { command: process.execPath, args: ["-e", ODD] },
      shutdownGraceMs: 100,
      callTimeoutMs: 5_000,
      logger: { warn: (message) => void warnings.push(message) },
    });
    const runtime = await runtimeOf(mcp);

    const started = Date.now();
    const { toolResults } = await runMcpTurn({
      runtime,
      script: [
        response([toolCall("act", { mode: "big_id" })]),
        response([toolCall("act", { mode: "broken" })]),
        response([toolCall("act", { mode: "ok" })]),
        "Done.",
      ],
    });

    expect(Date.now() - started).toBeLessThan(5_000);
    const [bigId, broken, ok] = toolResults;
    expect(bigId).toMatchObject({ isError: false, text: expect.stringMatching(/^big_id by \d+$/) });
    expect(broken).toMatchObject({
      isError: true,
      text: 'MCP server "odd" answered tools/call "act" with a malformed message: result: Invalid input: expected object, received string',
      details: { error: "protocol_error" },
    });
    // The same process answered the first call and the last.
    expect(ok!.text).toBe(bigId!.text.replace("big_id", "ok"));
    expect(warnings).toEqual([
      expect.stringMatching(
        /^MCP server "odd" sent a message that is no valid JSON-RPC message \(id: Too big: expected int to be <=9007199254740991\); it is ignored/,
      ),
    ]);
    expect(mcp.status).toMatchObject({ state: "ready", totalRestarts: 0 });
  });
});
