import { createVirtualClock, response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { startHttpFixture } from "./fixtures/http-fixture.js";
import { waitUntil } from "./fixtures/stdio-fixture.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

describe("a call that keeps reporting progress is capped", { timeout: 15_000 }, () => {
  it("callMaxDurationMs ends a call that keeps sending progress: cancelled on the server, an error naming the limit, the connection kept", async () => {
    const fixture = await startHttpFixture();
    const clock = createVirtualClock();
    const mcp = createMcpExtension({
      id: "chatty",
      server: { url: fixture.url },
      callMaxDurationMs: 5_000,
      clock,
    });
    const runtime = await createAgentRuntime({ base: [mcp] });
    let updates = 0;

    const turn = runMcpTurn({
      runtime,
      script: [response([toolCall("chatty", { ms: 20 })]), response([toolCall("echo", { text: "still here" })]), "Ok."],
      onEvent: (event) => {
        if (event.type === "debug.trace" && event.payload.message === "tool_execution_update") updates += 1;
      },
    });
    await waitUntil(() => (updates >= 5 ? true : undefined));
    await clock.advance(4_999);
    expect(fixture.log.some((entry) => entry.event === "cancelled")).toBe(false);
    await clock.advance(1);
    const { outcome, toolResults } = await turn;

    expect(outcome).toEqual({ kind: "completed" });
    expect(toolResults.map(({ isError, text }) => ({ isError, text }))).toEqual([
      {
        isError: true,
        text: 'MCP server "chatty" did not finish tools/call "chatty" within callMaxDurationMs (5000 ms in all, progress notwithstanding); it was cancelled',
      },
      { isError: false, text: "echo: still here" },
    ]);
    const gone = fixture;
    await waitUntil(() => gone.log.find((entry) => entry.event === "cancelled"));
    expect(mcp.status).toMatchObject({ state: "ready", lastError: { code: "call_timeout" } });
    await runtime.dispose();
  });
});
