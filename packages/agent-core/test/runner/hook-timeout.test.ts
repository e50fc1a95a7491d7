/**
 * `RunTurnInput.hookTimeoutMs`: a hook or host callback that never answers
 * fails after the limit by its own kind's rule, and the turn ends. Without
 * the option a hung hook waits until the turn is aborted (see abort tests).
 * Time is a self-advancing virtual clock: nothing here waits in real time.
 */
import { response, toolCall } from "@turnkit/agent-loop/testing";
import {
  assertRuntimeEventSequence,
  assertToolCallsAnswered,
  createRecordingTool,
  createVirtualClock,
  runScriptedTurn,
} from "@turnkit/agent-core/testing";
import { describe, expect, it } from "vitest";
import { type RunTurnInput, TurnkitConfigError } from "../../src/index.js";

const never = () => new Promise<never>(() => {});

async function turnWith(input: Partial<RunTurnInput>) {
  const clock = createVirtualClock({ autoAdvance: true });
  const shell = createRecordingTool("shell", { executionMode: "parallel" });
  const turn = await runScriptedTurn({
    script: [response([toolCall("shell", { value: "a" })]), "done"],
    runnerOptions: { clock },
    input: { tools: [shell], hookTimeoutMs: 5_000, ...input },
  });
  assertRuntimeEventSequence(turn.events);
  assertToolCallsAnswered(turn.transcript);
  const toolResult = turn.transcript.find((message) => message.role === "toolResult");
  const resultText =
    toolResult?.role === "toolResult"
      ? toolResult.content.map((block) => (block.type === "text" ? block.text : "")).join("")
      : undefined;
  return { turn, calls: shell.calls.length, resultText, pendingTimers: clock.pendingCount() };
}

const limit = "did not answer within 5000 ms (RunTurnInput.hookTimeoutMs)";

describe("a hook that never answers, with hookTimeoutMs", () => {
  it("before the model call: the request is never sent and the turn fails with code hook, naming the hook", async () => {
    const { turn, pendingTimers } = await turnWith({ hooks: { beforeLlmCallHook: never } });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: "hook" } });
    expect((turn.outcome as { message: string }).message).toContain(`beforeLlmCallHook ${limit}`);
    expect(turn.requests).toHaveLength(0);
    expect(pendingTimers).toBe(0);
  });

  it("after the model call: the response's calls are stripped and the turn fails with code hook", async () => {
    const { turn, calls } = await turnWith({ hooks: { afterLlmCallHook: never } });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: "hook" } });
    expect((turn.outcome as { message: string }).message).toContain(`afterLlmCallHook ${limit}`);
    expect(calls).toBe(0);
  });

  it("before a tool call: the call is blocked with an error result naming the hook; the turn goes on", async () => {
    const { turn, calls, resultText } = await turnWith({ hooks: { beforeToolCallHook: never } });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(calls).toBe(0);
    expect(resultText).toContain(`beforeToolCallHook ${limit}`);
  });

  it("observing a tool's start: ignored, the tool runs", async () => {
    const { turn, calls, resultText } = await turnWith({ hooks: { onToolExecutionStartHook: never } });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(calls).toBe(1);
    expect(resultText).toBe("shell:a");
  });

  it("after a tool call: the result becomes an error result naming the hook; the turn goes on", async () => {
    const { turn, calls, resultText } = await turnWith({ hooks: { afterToolCallHook: never } });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(calls).toBe(1);
    expect(resultText).toContain(`afterToolCallHook ${limit}`);
  });

  it("storing history: the turn fails with code hook (history is never silently lost)", async () => {
    const { turn } = await turnWith({ hooks: { onHistoryChangedHook: never } });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: "hook" } });
    expect((turn.outcome as { message: string }).message).toContain(`onHistoryChangedHook ${limit}`);
  });

  it("at a step's end: reported as a debug.trace error; the turn goes on", async () => {
    const { turn } = await turnWith({ hooks: { onStepEndHook: never } });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.writer.traces().filter((trace) => trace.message.includes(`onStepEndHook ${limit}`))).toHaveLength(2);
  });

  it("a host callback (getSteeringMessages): the turn fails with code internal, naming it", async () => {
    const { turn } = await turnWith({ getSteeringMessages: never });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: "internal" } });
    expect((turn.outcome as { message: string }).message).toContain(`getSteeringMessages ${limit}`);
  });

  it("a hook that answers within the limit is unaffected, and no timer outlives its call", async () => {
    const clock = createVirtualClock({ autoAdvance: true });
    const slow = (value: undefined) =>
      new Promise<undefined>((resolve) => clock.setTimeout(() => resolve(value), 4_999));
    const turn = await runScriptedTurn({
      script: [response([toolCall("shell", { value: "a" })]), "done"],
      runnerOptions: { clock },
      input: {
        tools: [createRecordingTool("shell", { executionMode: "parallel" })],
        hookTimeoutMs: 5_000,
        hooks: { beforeLlmCallHook: () => slow(undefined), beforeToolCallHook: () => slow(undefined) },
      },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(clock.pendingCount()).toBe(0);
  });
});

describe("hookTimeoutMs itself", () => {
  it.each([0, -1, 1.5, "5000", Number.POSITIVE_INFINITY])(
    "%s is refused before the turn starts, naming the field",
    async (value) => {
      const turn = runScriptedTurn({ script: ["hi"], input: { hookTimeoutMs: value as number } });
      await expect(turn).rejects.toThrow(TurnkitConfigError);
      await expect(turn).rejects.toThrow(/RunTurnInput\.hookTimeoutMs must be a positive integer/);
    },
  );
});
