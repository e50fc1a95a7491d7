/**
 * Abort (step 6 of a turn: the caller's signal aborts the Agent): nothing
 * the turn added to the caller's signal or to the timers outlives it.
 *
 * How leaks are measured. Listeners: node's own `getEventListeners(signal,
 * "abort")` on the caller's signal, before and after the turn (no wrapping).
 * Timers: every timer of the call stack goes through the runner's `Clock`,
 * so the runner gets a virtual clock and `pendingCount()` must be 0
 * after the turn; the loop's own grace timers use Node's `setTimeout`, so
 * those are counted by wrapping `setTimeout`/`clearTimeout` for the duration
 * of the turn (`probeRealTimers`). `process._getActiveHandles()` is not used: it
 * also sees the test runner's handles and unref'ed timers unreliably.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createVirtualClock, hang, response, text, toolCall } from "@turnkit/agent-loop/testing";
import { ErrorCode } from "@turnkit/protocol";
import type { PiTurnRunnerOptions } from "../../src/pi-turn-runner/runner-options.js";
import type { RunScriptedTurnOptions, ScriptedTurnResult } from "@turnkit/agent-core/testing";
import {
  abortListenerCount,
  createRecordingEventWriter,
  createRecordingTool,
  deferred,
  probeRealTimers,
  runCheckedTurn,
  type RealTimerProbe,
} from "@turnkit/agent-core/testing";
import { messageText, resolvedToolChunks } from "../support/turn-queries.js";

let timers: RealTimerProbe;
beforeEach(() => {
  timers = probeRealTimers();
});
afterEach(() => {
  timers.restore();
});

/** Runs a turn with the caller's signal and a virtual clock, and checks that nothing leaked afterwards. */
async function runWithAbort(controller: AbortController, options: RunScriptedTurnOptions): Promise<ScriptedTurnResult> {
  const clock = createVirtualClock();
  const before = abortListenerCount(controller.signal);
  const runnerOptions: PiTurnRunnerOptions = { clock, ...options.runnerOptions };
  const turn = await runCheckedTurn({
    ...options,
    runnerOptions,
    input: { ...options.input, signal: controller.signal },
  });
  expect(abortListenerCount(controller.signal)).toBe(before);
  expect(clock.pendingCount()).toBe(0);
  expect(timers.pending()).toBe(0);
  return turn;
}

describe("abort", () => {
  it("before start: running then aborted, no request, nothing left on the signal", async () => {
    const controller = new AbortController();
    controller.abort();
    const turn = await runWithAbort(controller, { script: ["never"] });
    expect(turn.outcome).toEqual({ kind: "aborted" });
    expect(turn.writer.statuses()).toEqual(["running", "aborted"]);
    expect(turn.events).toHaveLength(2);
    expect(turn.requests).toHaveLength(0);
    expect(turn.delivered).toHaveLength(0);
  });

  it("during streaming: aborted, no finish chunk for the aborted message, no further request", async () => {
    const controller = new AbortController();
    const writer = createRecordingEventWriter({
      onEvent: (event) => {
        if (event.type === "stream.resp" && event.payload.chunk.kind === "text") controller.abort();
      },
    });
    let listenersDuringTurn = 0;
    const turn = await runWithAbort(controller, {
      writer,
      script: [hang({ afterEvents: 3, response: response([text("partial answer that never ends")]) }), "never"],
      input: {
        hooks: { onLlmCallPreparedHook: () => void (listenersDuringTurn = abortListenerCount(controller.signal)) },
      },
    });
    expect(listenersDuringTurn).toBeGreaterThan(0); // the measure sees the runner's listener while it runs
    expect(turn.outcome).toEqual({ kind: "aborted" });
    expect(turn.requests).toHaveLength(1);
    expect(turn.writer.statuses()).toEqual(["running", "aborted"]);
    expect(turn.writer.chunksOf("msg_1").some((chunk) => chunk.kind === "finish")).toBe(false);
    expect(turn.delivered.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
  });

  it("during a tool: aborted, every call of the step has a result, no further request", async () => {
    const controller = new AbortController();
    const slow = createRecordingTool("slow", {
      executionMode: "parallel",
      answer: (_, signal) =>
        new Promise((_resolve, reject) => {
          if (signal.aborted) return reject(new Error("interrupted"));
          signal.addEventListener("abort", () => reject(new Error("interrupted")), { once: true });
          controller.abort();
        }),
    });
    const turn = await runWithAbort(controller, {
      script: [response([toolCall("slow", { value: "1" }), toolCall("slow", { value: "2" })]), "never"],
      input: { tools: [slow] },
    });
    expect(turn.outcome).toEqual({ kind: "aborted" });
    expect(turn.requests).toHaveLength(1);
    expect(turn.model.remaining()).toBe(1);
    const results = turn.delivered.filter((message) => message.role === "toolResult");
    expect(results).toHaveLength(2);
    expect(results.every((message) => message.isError)).toBe(true);
    expect(resolvedToolChunks(turn.events).map((chunk) => chunk.status)).toEqual(["failed", "failed"]);
  });

  it("during a sequential batch: calls not yet run get an 'aborted' result", async () => {
    const controller = new AbortController();
    const step = createRecordingTool("step", {
      answer: (input) => {
        if (input.value === "1") controller.abort();
        return { content: [{ type: "text", text: `did ${input.value}` }] };
      },
    });
    const turn = await runWithAbort(controller, {
      script: [
        response([
          toolCall("step", { value: "1" }),
          toolCall("step", { value: "2" }),
          toolCall("step", { value: "3" }),
        ]),
        "never",
      ],
      input: { tools: [step] },
    });
    expect(turn.outcome).toEqual({ kind: "aborted" });
    expect(step.calls).toHaveLength(1);
    const results = turn.delivered.filter((message) => message.role === "toolResult");
    expect(results.map((message) => message.isError)).toEqual([false, true, true]);
    expect(messageText(results[2]!)).toContain("aborted");
  });

  it("during a tool that ignores the signal: the loop stops waiting after its grace period", async () => {
    const controller = new AbortController();
    const never = deferred<never>();
    const stuck = createRecordingTool("stuck", {
      executionMode: "parallel",
      answer: () => (controller.abort(), never.promise),
    });
    const turn = await runWithAbort(controller, {
      script: [response([toolCall("stuck")]), "never"],
      input: { tools: [stuck] },
    });
    expect(turn.outcome).toEqual({ kind: "aborted" });
    expect(turn.requests).toHaveLength(1);
    expect(turn.delivered.filter((message) => message.role === "toolResult")).toHaveLength(1);
  });

  it("while the host is polled at a step-end exit boundary: no request is made after the abort", async () => {
    const controller = new AbortController();
    const finish = createRecordingTool("finish", {
      executionMode: "parallel",
      answer: () => ({ content: [{ type: "text", text: "bye" }], terminate: true }),
    });
    let polls = 0;
    const turn = await runWithAbort(controller, {
      script: [response([toolCall("finish")]), "never"],
      input: {
        tools: [finish],
        getSteeringMessages: async () => {
          polls++;
          if (polls < 2) return [];
          controller.abort();
          return [{ text: "message that raced the abort" }];
        },
        // Refuse once so the runner polls again; the second poll races the caller's abort.
        tryBeginClose: () => polls > 2,
      },
    });
    expect(turn.outcome).toEqual({ kind: "aborted" });
    expect(turn.requests).toHaveLength(1);
  });

  it("while the host is polled at idle (idle, before closing): no request is made after the abort", async () => {
    const controller = new AbortController();
    let polls = 0;
    let closes = 0;
    const turn = await runWithAbort(controller, {
      script: ["answer", "never"],
      input: {
        getSteeringMessages: async () => {
          polls++;
          // The step end gives up after its bounded number of refused closes; the next poll happens at idle.
          if (closes < 64) return [];
          controller.abort();
          return [{ text: "message that raced the abort" }];
        },
        tryBeginClose: () => (closes++, false),
      },
    });
    // The message the host handed over as the abort hit is never lost: the outcome hands it back.
    expect(turn.outcome).toEqual({
      kind: "aborted",
      undeliveredMessages: [
        expect.objectContaining({ role: "user", content: [{ type: "text", text: "message that raced the abort" }] }),
      ],
    });
    expect(turn.requests).toHaveLength(1);
    expect(polls).toBe(65);
  });

  it("a response the provider ended as aborted while nobody aborted the turn: failed (upstream), not aborted", async () => {
    const controller = new AbortController();
    const turn = await runWithAbort(controller, {
      script: [response([text("half an ans")], { stopReason: "aborted", errorMessage: "socket closed by peer" })],
    });
    expect(controller.signal.aborted).toBe(false);
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Upstream } });
    expect((turn.outcome as { message: string }).message).toContain("socket closed by peer");
    expect(turn.writer.statuses().at(-1)).toBe("failed");
  });
});
