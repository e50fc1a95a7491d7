import { createVirtualClock, response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { stdioFixture } from "./fixtures/stdio-fixture.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

describe("the restart policy: backoff, and forgiveness after a healthy period", { timeout: 30_000 }, () => {
  it("restarts at once, then after the backoff; a connection that stayed healthy starts the count again, so outages spread over time never use it up", async () => {
    const fixture = stdioFixture();
    const clock = createVirtualClock({ start: 1_000_000 });
    const mcp = createMcpExtension({
      id: "flaky",
      server: fixture.server,
      restart: { maxRestarts: 2, backoffMs: 1_000, maxBackoffMs: 10_000, healthyAfterMs: 60_000 },
      clock,
    });
    const runtime = await createAgentRuntime({ base: [mcp] });
    let turns = 0;
    const turn = (tool: string) =>
      runMcpTurn({ runtime, turnId: `t${++turns}`, script: [response([toolCall(tool, { text: "hi" })]), "Ok."] });
    const state = () => {
      const { state, restarts, totalRestarts, nextRestartInMs } = mcp.status;
      return { state, restarts, totalRestarts, nextRestartInMs };
    };

    await turn("crash");
    expect(state()).toEqual({ state: "failed", restarts: 0, totalRestarts: 0, nextRestartInMs: 0 });

    // The first restart in a row is made by the next turn.
    expect((await turn("crash")).toolResults[0]!.text).toMatch(/^MCP server "flaky" exited/);
    expect(state()).toEqual({ state: "failed", restarts: 1, totalRestarts: 1, nextRestartInMs: 1_000 });

    // Within the backoff a turn does not restart it: the tools are listed, their calls answered at once.
    const waiting = await turn("echo");
    expect(waiting.toolResults[0]).toMatchObject({ isError: true });
    expect(waiting.toolResults[0]!.text).toBe(
      'MCP server "flaky" is not running: it exited (its last stderr line: fixture: crashing on purpose); it is restarted at a turn in 1.0 s or later',
    );
    await clock.advance(400);
    expect(state()).toEqual({ state: "failed", restarts: 1, totalRestarts: 1, nextRestartInMs: 600 });

    await clock.advance(600);
    expect((await turn("echo")).toolResults[0]).toMatchObject({ isError: false, text: "echo: hi" });
    expect(state()).toEqual({ state: "ready", restarts: 2, totalRestarts: 2, nextRestartInMs: undefined });

    // Ready for the healthy period: the count starts again, and the next crash is restarted at once.
    await clock.advance(60_000);
    await turn("crash");
    expect(state()).toEqual({ state: "failed", restarts: 0, totalRestarts: 2, nextRestartInMs: 0 });
    expect((await turn("echo")).toolResults[0]).toMatchObject({ isError: false, text: "echo: hi" });
    expect(state()).toEqual({ state: "ready", restarts: 1, totalRestarts: 3, nextRestartInMs: undefined });

    // Two crashes in a row without a healthy period use the policy up.
    await turn("crash");
    await clock.advance(1_000);
    expect((await turn("crash")).toolResults[0]!.isError).toBe(true);
    expect(state()).toEqual({ state: "gave_up", restarts: 2, totalRestarts: 4, nextRestartInMs: undefined });
    expect((await turn("echo")).toolResults[0]!.text).toMatch(
      /^MCP server "flaky" is not running and will not be restarted \(2 of 2 restarts in a row used\); it exited/,
    );

    // The host may still start it over.
    await expect(mcp.connect()).resolves.toMatchObject({ state: "ready", restarts: 1, totalRestarts: 5 });
    expect(fixture.log().filter((entry) => entry.event === "start")).toHaveLength(6);
    await runtime.dispose();
  });
});
