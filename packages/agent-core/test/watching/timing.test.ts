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
        response([thinking("Let me check."), text("Checking."), toolCall("lookup", { value: "a" })], { usage: usage(100, 40, 0.5) }),
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
    const permission: BeforeToolCallHook = () => new Promise((resolve) => clock.setTimeout(() => resolve(undefined), 400));
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
      { family: "main", attempts: 1, backoffMs: 0, durationMs: 600, firstEventMs: 100, firstOutputMs: 300, decodeMs: 300, outputTokensPerSecond: 66.67 },
    ]);
    expect(timing.toolCalls).toEqual([{ toolCallId: "call_1", toolName: "lookup", queuedMs: 400, runMs: 250 }]);
    expect(timing.wallMs).toBe(2350 + 400 + 250 + 600);
    // The same per request on the finish chunk that closes each step.
    const stepTimings = turn.events.flatMap((event) =>
      event.type === "stream.resp" && event.payload.chunk.kind === "finish" ? [event.payload.chunk.step?.timing] : [],
    );
    expect(stepTimings).toEqual(timing.requests);
  });
});
