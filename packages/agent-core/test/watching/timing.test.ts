/**
 * Where the time of a turn went, on a virtual clock: every scripted event
 * takes 100 ms, so each measurement is an exact multiple of it.
 */
import { describe, expect, it } from "vitest";
import type { BeforeToolCallHook } from "../../src/index.js";
import {
  createRecordingTool,
  createScriptedModel,
  createVirtualClock,
  response,
  runCheckedTurn,
  text,
  thinking,
  toolCall,
  usageOf as usage,
} from "../../src/testing/index.js";

describe("timing of a turn", () => {
  it("per request (first event, first output, decode, thinking, tokens/s, retries), per tool call and per turn", async () => {
    const clock = createVirtualClock({ autoAdvance: true });
    const model = createScriptedModel(
      [
        response([], { stopReason: "error", errorMessage: "429 Too Many Requests" }),
        response([thinking("Let me check."), text("Checking."), toolCall("lookup", { value: "a" })], {
          usage: usage(100, 40, 0.5),
        }),
        response([text("All done.")], { usage: usage(150, 20, 0.5) }),
      ],
      { clock, eventDelayMs: 100 },
    );
    const lookup = createRecordingTool("lookup", {
      answer: async () => {
        await new Promise<void>((resolve) => clock.setTimeout(resolve, 250));
        return { content: [{ type: "text", text: "found" }] };
      },
    });
    // A permission prompt that takes 400 ms: the call's queued time.
    const permission: BeforeToolCallHook = () =>
      new Promise((resolve) => clock.setTimeout(() => resolve(undefined), 400));
    const turn = await runCheckedTurn({
      model,
      input: {
        tools: [lookup],
        hooks: { beforeToolCallHook: permission },
        llmRetry: { baseDelayMs: 1000 },
        // Only the script's delays and the backoff move the clock.
        llm: { firstEventTimeoutMs: 0, streamIdleTimeoutMs: 0 },
      },
      runnerOptions: { clock, random: () => 0.5 },
    });

    expect(turn.outcome.kind).toBe("completed");
    const timing = turn.outcome.timing!;
    expect(timing.requests).toEqual([
      {
        family: "main",
        attempts: 2,
        backoffMs: 750,
        // The failed attempt's 2 events (start, error), the 750 ms backoff, then the answer's 14 events:
        // start, thinking start / 3 deltas / end, text start / delta / end, tool call start / 2 deltas / end, done.
        durationMs: 200 + 750 + 1400,
        firstEventMs: 100,
        // The first thinking delta is the first visible output; decoding runs from there to done.
        firstOutputMs: 300,
        decodeMs: 1100,
        thinkingMs: 400,
        outputTokensPerSecond: 36.36, // 40 output tokens in 1.1 s
      },
      {
        family: "main",
        attempts: 1,
        backoffMs: 0,
        durationMs: 600,
        firstEventMs: 100,
        firstOutputMs: 300,
        decodeMs: 300,
        outputTokensPerSecond: 66.67,
      },
    ]);
    expect(timing.toolCalls).toEqual([{ toolCallId: "call_1", toolName: "lookup", queuedMs: 400, runMs: 250 }]);
    expect(timing.wallMs).toBe(2350 + 400 + 250 + 600);
    // The same per request on the finish chunk that closes each step.
    const stepTimings = turn.events.flatMap((event) =>
      event.type === "stream.resp" && event.payload.chunk.kind === "finish" ? [event.payload.chunk.step?.timing] : [],
    );
    expect(stepTimings).toEqual(timing.requests);
  });

  it("per tool call, for many calls over several steps, in announcement order: a blocked call is all queued, a repeated id keeps its first times", async () => {
    const clock = createVirtualClock({ autoAdvance: true });
    const call = (value: string, id: string) => toolCall("lookup", { value }, { id });
    const model = createScriptedModel(
      [
        response([call("a", "c1"), call("b", "c2"), call("blocked", "c3")]),
        response([call("c", "c4"), call("d", "c5"), call("e", "c6"), call("f", "c7")]),
        response([call("g", "c1"), call("h", "c8")]),
        response([text("Done.")]),
      ],
      { clock, eventDelayMs: 0 },
    );
    // A call runs 100 ms per letter from "a" (a: 100 ms, b: 200 ms, ...).
    const lookup = createRecordingTool("lookup", {
      executionMode: "parallel",
      answer: async (args) => {
        const ms = 100 * (String((args as { value: string }).value).charCodeAt(0) - 96);
        await new Promise<void>((resolve) => clock.setTimeout(resolve, ms));
        return { content: [{ type: "text", text: "found" }] };
      },
    });
    // Asking takes 50 ms; "blocked" is refused after it.
    const permission: BeforeToolCallHook = (context) =>
      new Promise((resolve) =>
        clock.setTimeout(
          () =>
            resolve(
              (context.args as { value: string }).value === "blocked" ? { block: true, reason: "no" } : undefined,
            ),
          50,
        ),
      );
    const turn = await runCheckedTurn({
      model,
      input: {
        tools: [lookup],
        hooks: { beforeToolCallHook: permission },
        llm: { firstEventTimeoutMs: 0, streamIdleTimeoutMs: 0 },
      },
      runnerOptions: { clock },
    });

    expect(turn.outcome.kind).toBe("completed");
    const runs = (value: string) => 100 * (value.charCodeAt(0) - 96);
    // The loop announces and asks for a step's calls one after another (50 ms each) and runs the allowed ones
    // together once all were asked, so an earlier call waits longer; c3 was refused (all its time is queued);
    // the third step's repeated id c1 keeps the times of its first call.
    expect(turn.outcome.timing!.toolCalls).toEqual([
      { toolCallId: "c1", toolName: "lookup", queuedMs: 150, runMs: runs("a") },
      { toolCallId: "c2", toolName: "lookup", queuedMs: 100, runMs: runs("b") },
      { toolCallId: "c3", toolName: "lookup", queuedMs: 50, runMs: 0 },
      { toolCallId: "c4", toolName: "lookup", queuedMs: 200, runMs: runs("c") },
      { toolCallId: "c5", toolName: "lookup", queuedMs: 150, runMs: runs("d") },
      { toolCallId: "c6", toolName: "lookup", queuedMs: 100, runMs: runs("e") },
      { toolCallId: "c7", toolName: "lookup", queuedMs: 50, runMs: runs("f") },
      { toolCallId: "c8", toolName: "lookup", queuedMs: 50, runMs: runs("h") },
    ]);
  });
});
