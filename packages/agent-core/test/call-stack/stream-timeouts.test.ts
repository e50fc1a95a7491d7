import type { AssistantMessageEvent } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { classifyError, getAttachedClassifiedError } from "../../src/call-stack/classify-error.js";
import { LLM_FIRST_EVENT_TIMEOUT_MS, LLM_STREAM_IDLE_TIMEOUT_MS } from "../../src/defaults.js";
import { resolveStreamTimeouts, withStreamTimeouts } from "../../src/call-stack/stream-timeouts.js";
import { collect, scriptedStreamFn, testModel, userContext } from "../support/scripted-stream.js";
import { createVirtualClock } from "../support/virtual-clock.js";

const model = testModel();
const context = userContext();

/** Reads events until one matches, returning the iterator to continue from. */
async function readUntil(stream: AsyncIterable<AssistantMessageEvent>, type: AssistantMessageEvent["type"]) {
  const iterator = stream[Symbol.asyncIterator]();
  const seen: string[] = [];
  for (;;) {
    const next = await iterator.next();
    if (next.done) throw new Error(`stream ended before ${type}; saw ${seen.join(",")}`);
    seen.push(next.value.type);
    if (next.value.type === type) return { iterator, seen };
  }
}

describe("resolveStreamTimeouts", () => {
  it("takes the input, then the env, then the default; 0 is kept", () => {
    const env = { TURNKIT_LLM_FIRST_EVENT_TIMEOUT_MS: "5000", TURNKIT_LLM_STREAM_IDLE_TIMEOUT_MS: "6000" };
    expect(resolveStreamTimeouts({}, {})).toEqual({
      firstEventTimeoutMs: LLM_FIRST_EVENT_TIMEOUT_MS,
      streamIdleTimeoutMs: LLM_STREAM_IDLE_TIMEOUT_MS,
    });
    expect(LLM_FIRST_EVENT_TIMEOUT_MS).toBe(120_000);
    expect(LLM_STREAM_IDLE_TIMEOUT_MS).toBe(300_000);
    expect(resolveStreamTimeouts({}, env)).toEqual({ firstEventTimeoutMs: 5000, streamIdleTimeoutMs: 6000 });
    expect(resolveStreamTimeouts({ firstEventTimeoutMs: 10, streamIdleTimeoutMs: 0 }, env)).toEqual({
      firstEventTimeoutMs: 10,
      streamIdleTimeoutMs: 0,
    });
    expect(resolveStreamTimeouts({}, { TURNKIT_LLM_FIRST_EVENT_TIMEOUT_MS: "0" }).firstEventTimeoutMs).toBe(0);
  });

  it("ignores a malformed env value and rejects a malformed input", () => {
    expect(resolveStreamTimeouts({}, { TURNKIT_LLM_STREAM_IDLE_TIMEOUT_MS: "soon" }).streamIdleTimeoutMs).toBe(
      LLM_STREAM_IDLE_TIMEOUT_MS,
    );
    expect(() => resolveStreamTimeouts({ firstEventTimeoutMs: -1 }, {})).toThrow(
      expect.objectContaining({ code: "invalid_turn_input" }),
    );
    expect(() => resolveStreamTimeouts({ streamIdleTimeoutMs: Number.NaN }, {})).toThrow(
      expect.objectContaining({ code: "invalid_turn_input" }),
    );
  });
});

describe("withStreamTimeouts", () => {
  it("ends a silent request with a retryable first-event timeout and aborts it", async () => {
    const clock = createVirtualClock();
    const inner = scriptedStreamFn([{ kind: "hang", silent: true }]);
    const stream = withStreamTimeouts(inner, { firstEventTimeoutMs: 100, streamIdleTimeoutMs: 1000, clock, env: {} })(
      model,
      context,
      {},
    );
    clock.advance(99);
    expect(inner.calls[0].options?.signal?.aborted).toBe(false);
    clock.advance(1);
    const result = await collect(stream);
    expect(result.types).toEqual(["error"]);
    expect(result.final.stopReason).toBe("error");
    expect(result.final.errorMessage).toMatch(/no first event within 100 ms/);
    expect(getAttachedClassifiedError(result.final)).toMatchObject({ code: "timeout", retryable: true });
    expect(inner.calls[0].options?.signal?.aborted).toBe(true);
    expect(clock.pendingCount).toBe(0);
  });

  it("ends a stalled stream with an idle timeout that keeps the partial text", async () => {
    const clock = createVirtualClock();
    const inner = scriptedStreamFn([{ kind: "hang", pieces: ["Hel"] }]);
    const stream = await withStreamTimeouts(inner, { firstEventTimeoutMs: 100, streamIdleTimeoutMs: 500, clock, env: {} })(
      model,
      context,
      {},
    );
    const { iterator, seen } = await readUntil(stream, "text_delta");
    expect(seen).toEqual(["start", "text_start", "text_delta"]);
    clock.advance(200); // past the first-event limit: no longer armed
    clock.advance(299);
    expect(inner.calls[0].options?.signal?.aborted).toBe(false);
    clock.advance(1);
    const next = await iterator.next();
    expect(next.value).toMatchObject({ type: "error", reason: "error" });
    const final = await stream.result();
    expect(final.errorMessage).toMatch(/no event within 500 ms \(idle timeout\)/);
    expect(final.content).toEqual([{ type: "text", text: "Hel" }]);
    expect(classifyError(final)).toMatchObject({ code: "timeout", retryable: true });
  });

  it("reports a caller abort as aborted, never as a timeout", async () => {
    const clock = createVirtualClock();
    const controller = new AbortController();
    const inner = scriptedStreamFn([{ kind: "hang", silent: true }]);
    const stream = withStreamTimeouts(inner, { firstEventTimeoutMs: 100, clock, env: {} })(model, context, {
      signal: controller.signal,
    });
    clock.advance(50);
    controller.abort();
    clock.advance(1000);
    const result = await collect(stream);
    expect(result.final.stopReason).toBe("aborted");
    expect(result.final.errorMessage).not.toMatch(/timed out/);
    expect(classifyError(result.final).aborted).toBe(true);
    expect(clock.pendingCount).toBe(0);
  });

  it("0 disables both watchdogs", async () => {
    const clock = createVirtualClock();
    const controller = new AbortController();
    const inner = scriptedStreamFn([{ kind: "hang", silent: true }]);
    const stream = withStreamTimeouts(inner, { firstEventTimeoutMs: 0, streamIdleTimeoutMs: 0, clock, env: {} })(
      model,
      context,
      { signal: controller.signal },
    );
    clock.advance(10 * 60 * 60 * 1000);
    expect(clock.scheduled).toEqual([]);
    controller.abort();
    expect((await collect(stream)).final.stopReason).toBe("aborted");
  });

  it("clears its timers when the stream completes", async () => {
    const clock = createVirtualClock();
    const inner = scriptedStreamFn([{ kind: "text", pieces: ["a", "b"] }]);
    const result = await collect(withStreamTimeouts(inner, { clock, env: {} })(model, context, {}));
    expect(result.text).toBe("ab");
    expect(result.final.stopReason).toBe("stop");
    expect(clock.scheduled.length).toBeGreaterThan(1); // re-armed per event
    expect(clock.pendingCount).toBe(0);
  });
});
