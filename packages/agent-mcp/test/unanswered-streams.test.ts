import { response, toolCall } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { startDroppingServer } from "./fixtures/dropping-server.js";
import { runMcpTurn, runtimeOf } from "./support/run-mcp-turn.js";

const CALL_TIMEOUT_MS = 5_000;

/** One turn calling `drop` then `echo` on the server; the results, and how long the turn took. */
async function dropThenEcho(url: string) {
  const mcp = createMcpExtension({ id: "dropping", server: { url }, callTimeoutMs: CALL_TIMEOUT_MS });
  const runtime = await runtimeOf(mcp);
  const started = Date.now();
  const { toolResults } = await runMcpTurn({
    runtime,
    script: [response([toolCall("drop", { text: "a" })]), response([toolCall("echo", { text: "b" })]), "Done."],
  });
  const results = toolResults.map((result) => [
    result.isError,
    result.text,
    (result.details as { error?: string }).error,
  ]);
  return { results, ms: Date.now() - started, status: mcp.status };
}

describe("a session's call whose event stream ends before its answer", () => {
  it.each([
    [
      "not resumable (no event ids): the call fails at once as the server's protocol error; the session lives on",
      { resumable: false },
    ],
    [
      "resumable, but the server refuses the resumption with 405 (it offers no GET stream): the call fails at once as a protocol error",
      { resumable: true, getStream: false },
    ],
  ] as const)("%s", async (_name, options) => {
    const server = await startDroppingServer(options);

    const { results, ms, status } = await dropThenEcho(server.url);

    expect(ms).toBeLessThan(CALL_TIMEOUT_MS);
    expect(results).toEqual([
      [
        true,
        'MCP server "dropping" answered tools/call "drop" with an event stream that ended without its answer',
        "protocol_error",
      ],
      [false, "echo b", undefined],
    ]);
    expect(status).toMatchObject({ state: "ready", restarts: 0, totalRestarts: 0 });
    expect(server.calls).toEqual(["drop a", "echo b"]); // run once each, never sent again
  });

  it("resumable (its events have ids): the stream is resumed with Last-Event-ID and the call gets its answer", async () => {
    const server = await startDroppingServer({ resumable: true });

    const { results, ms, status } = await dropThenEcho(server.url);

    expect(ms).toBeLessThan(CALL_TIMEOUT_MS);
    expect(results).toEqual([
      [false, "dropped a", undefined],
      [false, "echo b", undefined],
    ]);
    expect(status).toMatchObject({ state: "ready", restarts: 0 });
    expect(server.calls).toEqual(["drop a", "echo b"]);
  });
});
