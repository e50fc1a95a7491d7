import type { RuntimeEvent } from "@turnkit/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shouldUseColor, stripAnsi } from "../src/ansi-style.js";
import { createRenderer } from "../src/renderer.js";
import { formatTurnSummary, formatTurnTiming } from "../src/turn-stats.js";
import { createTempRoot, runScripted, toolCallEventIndex } from "./support/scripted-run.js";
import { replayTerminal } from "./support/terminal-replay.js";

function render(
  events: readonly RuntimeEvent[],
  options: { tty: boolean; color: boolean },
  upTo = events.length,
): string {
  let output = "";
  const renderer = createRenderer({
    out: { write: (text) => (output += text), columns: 1000 },
    ...options,
    animate: false,
  });
  for (const event of events.slice(0, upTo)) renderer.handle(event);
  if (upTo === events.length) renderer.close();
  return output;
}

describe("the renderer: a function of RuntimeEvents and options", () => {
  let root: Awaited<ReturnType<typeof createTempRoot>>;
  let events: RuntimeEvent[];
  beforeAll(async () => {
    root = await createTempRoot();
    events = (await runScripted(root.dir)).events;
  }, 60_000);
  afterAll(() => root.cleanUp());

  it("renders the same events to the same text", () => {
    expect(render(events, { tty: false, color: false })).toBe(render(events, { tty: false, color: false }));
  });

  it("on a terminal, once the live region is gone, the screen reads exactly like the plain output", () => {
    const plain = render(events, { tty: false, color: false });
    const terminal = render(events, { tty: true, color: true });
    expect(terminal).toContain("\x1b[");
    expect(replayTerminal(terminal, 1000)).toBe(plain);
  });

  it("colours only with color: thinking dimmed, marks green and red", () => {
    const coloured = render(events, { tty: true, color: true });
    expect(coloured).toContain("\x1b[2mA\x1b[22m");
    expect(coloured).toContain("\x1b[32m✓\x1b[39m");
    expect(stripAnsi(render(events, { tty: true, color: false }))).toBe(
      render(events, { tty: true, color: false }).replace(/\x1b\[\d*[AJ]/g, ""),
    );
  });

  it("shows a spinner line for a running tool, only on a terminal", () => {
    const bashStarted = toolCallEventIndex(events, "bash", "started");
    const whileRunning = replayTerminal(render(events, { tty: true, color: false }, bashStarted + 1), 1000);
    expect(whileRunning.split("\n").at(-1)).toBe("  ⠋ bash node --test");
    expect(render(events, { tty: false, color: false }, bashStarted + 1)).not.toContain("⠋");

    // bash streams its output: the spinner line shows the latest line of it.
    const firstUpdate = events.findIndex(
      (event) => event.type === "debug.trace" && event.payload.message === "tool_execution_update",
    );
    expect(firstUpdate).toBeGreaterThan(bashStarted);
    const withProgress = replayTerminal(render(events, { tty: true, color: false }, firstUpdate + 1), 1000);
    expect(withProgress.split("\n").at(-1)).toMatch(/^  ⠋ bash node --test  \S/);
  });

  it("respects NO_COLOR and colours only terminals", () => {
    expect(shouldUseColor(true, {})).toBe(true);
    expect(shouldUseColor(true, { NO_COLOR: "1" })).toBe(false);
    expect(shouldUseColor(true, { NO_COLOR: "" })).toBe(true);
    expect(shouldUseColor(false, {})).toBe(false);
  });

  it("summarises a turn from its reported usage and timing, with the cost only for a model that has prices", () => {
    const total = {
      input: 12_000,
      output: 678,
      cacheRead: 300,
      cacheWrite: 45,
      totalTokens: 13_023,
      cost: { input: 0.03, output: 0.0121, cacheRead: 0, cacheWrite: 0, total: 0.0421 },
    };
    const none = {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    };
    const usage = { main: total, auxiliary: none, total, attempts: { main: 4, auxiliary: 0 } };
    const timing = (wallMs: number) => ({ wallMs, requests: [], toolCalls: [] });
    const stats = { steps: 3, toolCalls: 4, usage, timing: timing(2_345) };
    expect(formatTurnSummary(stats, { showCost: true })).toBe(
      "3 steps · 4 tool calls · 12,345 tokens in / 678 out · $0.0421 · 2.3 s",
    );
    expect(formatTurnSummary({ ...stats, steps: 1, toolCalls: 1, timing: timing(420) }, { showCost: false })).toBe(
      "1 step · 1 tool call · 12,345 tokens in / 678 out · 420 ms",
    );
  });

  it("says where a turn's time went: requests, first output, decoding, tools, retry waits", () => {
    expect(
      formatTurnTiming({
        wallMs: 5_000,
        requests: [
          {
            family: "main",
            attempts: 2,
            backoffMs: 2_100,
            durationMs: 3_000,
            firstEventMs: 300,
            firstOutputMs: 420,
            decodeMs: 400,
          },
          {
            family: "main",
            attempts: 1,
            backoffMs: 0,
            durationMs: 1_500,
            firstEventMs: 200,
            firstOutputMs: 350,
            decodeMs: 1_100,
          },
        ],
        toolCalls: [{ toolCallId: "c1", toolName: "bash", queuedMs: 900, runMs: 35 }],
      }),
    ).toBe(
      "2 model requests (1 retried) · 420 ms to first output · 1.5 s decoding · 35 ms in tools · 2.1 s retry waits",
    );
  });
});
