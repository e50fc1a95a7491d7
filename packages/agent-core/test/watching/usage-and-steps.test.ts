/**
 * Usage and cost of a turn through a real `PiTurnRunner`: summed per turn
 * for the loop's requests and a hook's own (auxiliary) requests, every
 * attempt counted (also one that failed before any output), reported on
 * the finish chunk that closes each step (with running totals), on the
 * terminal status and in the outcome of every kind.
 */
import type { RuntimeEvent, StepReport } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import type { BeforeLlmCallHook } from "../../src/index.js";
import {
  createRecordingTool,
  createScriptedModel,
  createVirtualClock,
  response,
  runCheckedTurn,
  runScriptedTurn,
  text,
  toolCall,
  usageOf as usage,
} from "../../src/testing/index.js";

const zero = usage(0, 0, 0);
const sum = (input: number, output: number, cost: number) => ({ ...usage(input, output, cost) });

function finishSteps(events: readonly RuntimeEvent[]): StepReport[] {
  return events.flatMap((event) =>
    event.type === "stream.resp" && event.payload.chunk.kind === "finish" && event.payload.chunk.step
      ? [event.payload.chunk.step]
      : [],
  );
}

/** A hook that asks its own model once, before the first request (as a compaction or a classifier would). */
const askAuxiliaryOnce: BeforeLlmCallHook = async (event) => {
  if (event.requestIndex !== 0) return undefined;
  const stream = await event.auxiliaryStreamFn(
    event.model,
    { messages: [{ role: "user", content: "classify", timestamp: 0 }] },
    {},
  );
  await stream.result();
  return undefined;
};

describe("usage and cost of a turn", () => {
  it("sums the loop's requests and a hook's own, every attempt included, and reports each step with running totals", async () => {
    const clock = createVirtualClock({ autoAdvance: true });
    const lookup = createRecordingTool("lookup", { executionMode: "parallel" });
    const model = createScriptedModel(
      [
        response([text("routine")], { usage: usage(40, 8, 0.125) }), // the hook's auxiliary request
        response([], { stopReason: "error", errorMessage: "503 Service Unavailable", usage: usage(10, 0, 0.25) }), // fails before output
        response([text("Looking."), toolCall("lookup", { value: "a" })], { usage: usage(100, 20, 0.5) }),
        response([text("Done.")], { usage: usage(200, 30, 1) }),
      ],
      { clock },
    );
    const turn = await runCheckedTurn({
      model,
      input: { tools: [lookup], hooks: { beforeLlmCallHook: askAuxiliaryOnce }, llmRetry: { baseDelayMs: 1000 } },
      runnerOptions: { clock, random: () => 0.5 },
    });

    expect(turn.outcome.kind).toBe("completed");
    const expected = {
      main: sum(310, 50, 1.75),
      auxiliary: sum(40, 8, 0.125),
      total: sum(350, 58, 1.875),
      attempts: { main: 3, auxiliary: 1 },
    };
    expect(turn.outcome.usage).toEqual(expected);
    const terminal = turn.events[turn.events.length - 1]!;
    expect(terminal.type === "session.status" && terminal.payload.usage).toEqual(expected);

    const steps = finishSteps(turn.events);
    expect(
      steps.map(({ stepIndex, usage: stepUsage, turnUsage }) => ({ stepIndex, stepUsage, total: turnUsage.total })),
    ).toEqual([
      // The first step paid for its failed attempt too; the running total includes the hook's request.
      { stepIndex: 0, stepUsage: sum(110, 20, 0.75), total: sum(150, 28, 0.875) },
      { stepIndex: 1, stepUsage: sum(200, 30, 1), total: sum(350, 58, 1.875) },
    ]);
    expect(steps[0]!.timing).toMatchObject({ family: "main", attempts: 2 });
    expect(steps[1]!.timing).toMatchObject({ family: "main", attempts: 1, backoffMs: 0 });
  });

  it("an aborted turn reports what it spent", async () => {
    const controller = new AbortController();
    const slow = createRecordingTool("slow", { answer: () => new Promise(() => controller.abort()) });
    const turn = await runScriptedTurn({
      script: [response([toolCall("slow")], { usage: usage(60, 6, 0.5) })],
      input: { tools: [slow], signal: controller.signal },
    });
    expect(turn.outcome.kind).toBe("aborted");
    expect(turn.outcome.usage).toEqual({
      main: sum(60, 6, 0.5),
      auxiliary: zero,
      total: sum(60, 6, 0.5),
      attempts: { main: 1, auxiliary: 0 },
    });
    const terminal = turn.events[turn.events.length - 1]!;
    expect(terminal.type === "session.status" && terminal.payload).toMatchObject({
      status: "aborted",
      usage: turn.outcome.usage,
    });
  });

  it("a failed turn reports every attempt, the failed one included, when the provider reported usage", async () => {
    const turn = await runScriptedTurn({
      script: [response([], { stopReason: "error", errorMessage: "401 invalid x-api-key", usage: usage(12, 0, 0.25) })],
    });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: "auth" } });
    expect(turn.outcome.usage?.main).toEqual(sum(12, 0, 0.25));
    const [step] = finishSteps(turn.events);
    expect(step).toMatchObject({ stepIndex: 0, usage: sum(12, 0, 0.25) });
  });

  it("keeps the outcome's shape: usage and timing are read as fields, not enumerated", async () => {
    const turn = await runScriptedTurn({ script: ["Hi."] });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(Object.keys(turn.outcome)).toEqual(["kind"]);
    expect(turn.outcome.usage?.attempts).toEqual({ main: 1, auxiliary: 0 });
    expect(turn.outcome.timing?.requests).toHaveLength(1);
  });
});
