/**
 * Abort latency is bounded: once a turn is aborted, every hung hook and host
 * callback shares one abort grace (`ABORT_GRACE_MS`), so a turn resolves
 * within about one grace of the abort however many events would call the
 * hung code again. The agent-core README states the bound: one second.
 *
 * What the code decides is how many graces a turn waits out one after
 * another after the abort; the real time those take also depends on how
 * loaded the machine is. So the tests count the real grace timers (a fresh
 * grace per hung call waits 2 + n of them) and keep a generous real-time
 * limit only against hangs.
 */
import { describe, expect, it } from "vitest";
import { probeGraceTimers, response, sequentialGraces, toolCall } from "@turnkit/agent-loop/testing";
import {
  assertRuntimeEventSequence,
  createRecordingEventWriter,
  createRecordingTool,
  runScriptedTurn,
} from "@turnkit/agent-core/testing";
import type { RunTurnInput } from "../../src/pi-turn-runner/run-turn-input.js";

/**
 * Graces waited out one after another after the abort: the turn's one shared
 * grace, plus one that a loaded machine may start late.
 */
const MAX_SEQUENTIAL_GRACES = 2;
/** Against a hang only: far above the README's one second, far below the test timeout. */
const HANG_LIMIT_MS = 10_000;
const never = () => new Promise<never>(() => undefined);

function manyCalls(count: number) {
  return response(
    Array.from({ length: count }, (_, index) => toolCall("work", { value: String(index) }, { id: `call-${index}` })),
  );
}

/**
 * Runs a turn aborted by `setup`'s `abort`; measures the real time from the
 * abort to the outcome and how many abort graces ran one after another in it.
 */
async function latencyOf(
  setup: (abort: () => void) => Partial<RunTurnInput>,
  options: { calls?: number; writer?: ReturnType<typeof createRecordingEventWriter> } = {},
) {
  const controller = new AbortController();
  let abortedAt = 0;
  const abort = () => {
    if (abortedAt === 0) abortedAt = performance.now();
    controller.abort();
  };
  const graces = probeGraceTimers();
  try {
    // Not runCheckedTurn: a history hook that hangs leaves the host's own store short, on purpose.
    const turn = await runScriptedTurn({
      writer: options.writer,
      script: [manyCalls(options.calls ?? 6), "never"],
      input: {
        signal: controller.signal,
        tools: [createRecordingTool("work", { executionMode: "parallel" })],
        ...setup(abort),
      },
    });
    const resolvedAt = performance.now();
    assertRuntimeEventSequence(turn.events);
    return {
      turn,
      latency: resolvedAt - abortedAt,
      sequential: sequentialGraces(graces.waits(), abortedAt, resolvedAt),
    };
  } finally {
    graces.restore();
  }
}

describe("abort latency is one shared grace", () => {
  it("a history hook that never returns, with six tool calls: the turn resolves within one grace, not (2 + n) graces", async () => {
    const { turn, latency, sequential } = await latencyOf((abort) => ({
      hooks: {
        // Stores the first messages, then hangs (after aborting) once tool results arrive: every later result calls it again.
        onHistoryChangedHook: (change) => {
          if (!change.messages.some((message) => message.role === "toolResult")) return undefined;
          abort();
          return never();
        },
      },
    }));
    expect(turn.outcome.kind).toBe("aborted");
    expect(sequential).toBeGreaterThanOrEqual(1);
    expect(sequential).toBeLessThanOrEqual(MAX_SEQUENTIAL_GRACES);
    expect(latency).toBeLessThan(HANG_LIMIT_MS);
  });

  it("every kind of hung host code at once (tool hooks, history, step end, steering, writer): still within the stated bound", async () => {
    let aborted = false;
    const writer = createRecordingEventWriter({ onEvent: () => (aborted ? never() : undefined) });
    const { turn, latency, sequential } = await latencyOf(
      (abort) => {
        const hang = () => {
          aborted = true;
          abort();
          return never();
        };
        return {
          hooks: {
            onToolExecutionStartHook: hang,
            afterToolCallHook: hang,
            onHistoryChangedHook: (change) =>
              change.messages.some((message) => message.role === "toolResult") ? hang() : undefined,
            onStepEndHook: hang,
          },
          getSteeringMessages: hang,
          tryBeginClose: hang,
        };
      },
      { writer, calls: 4 },
    );
    expect(turn.outcome.kind).toBe("aborted");
    expect(sequential).toBeGreaterThanOrEqual(1);
    expect(sequential).toBeLessThanOrEqual(MAX_SEQUENTIAL_GRACES);
    expect(latency).toBeLessThan(HANG_LIMIT_MS);
  });
});
