import { createAssistantMessageEventStream, type Model } from "@mariozechner/pi-ai";
import { emptyUsage } from "@turnkit/agent-loop";
import { abortListenerCount, createVirtualClock } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { withLlmRetry } from "../../src/call-stack/llm-retry.js";
import { LlmTimeoutError } from "../../src/call-stack/stream-errors.js";
import type { StreamFn } from "../../src/call-stack/stream-fn.js";
import { withStreamTimeouts } from "../../src/call-stack/stream-timeouts.js";
import { userContext } from "../support/user-context.js";

const model = { id: "m", api: "test", provider: "test" } as Model<any>;

/** A provider that never answers and records the signal of each request. */
function silentProvider(): StreamFn & { signals: AbortSignal[] } {
  const signals: AbortSignal[] = [];
  const fn = ((_model, _context, options) => {
    signals.push(options!.signal!);
    return createAssistantMessageEventStream();
  }) as StreamFn & { signals: AbortSignal[] };
  fn.signals = signals;
  return fn;
}

describe("the stream timeouts' request signal", () => {
  it("under the transport retry is the attempt's own signal, aborted by the timeout, and fresh for the next attempt", async () => {
    const clock = createVirtualClock();
    const provider = silentProvider();
    const timed = withStreamTimeouts(provider, { firstEventTimeoutMs: 100, streamIdleTimeoutMs: 0, clock, env: {} });
    const caller = new AbortController();
    const stream = await withLlmRetry(
      timed,
      { maxRetries: 1, baseDelayMs: 10, maxDelayMs: 10 },
      { clock, random: () => 0 },
    )(model, userContext(), {
      signal: caller.signal,
    });
    await clock.advance(100);
    expect(provider.signals).toHaveLength(1);
    expect(provider.signals[0]!.aborted).toBe(true);
    expect(LlmTimeoutError.isInstance(provider.signals[0]!.reason)).toBe(true);
    await clock.advance(10);
    expect(provider.signals).toHaveLength(2);
    expect(provider.signals[1]!.aborted).toBe(false);
    expect(provider.signals[1]).not.toBe(provider.signals[0]);
    const reason = new Error("run stopped");
    caller.abort(reason);
    expect(provider.signals[1]!.aborted).toBe(true);
    expect(provider.signals[1]!.reason).toBe(reason);
    expect((await stream.result()).stopReason).toBe("aborted");
    expect(caller.signal.reason).not.toBeInstanceOf(LlmTimeoutError);
  });

  it("under the transport retry gets no listener from the layers, reaches the provider at once with the caller's reason, and leaves none behind", async () => {
    const clock = createVirtualClock();
    const provider = silentProvider();
    const timed = withStreamTimeouts(provider, { firstEventTimeoutMs: 100, streamIdleTimeoutMs: 100, clock, env: {} });
    const caller = new AbortController();
    const stream = await withLlmRetry(timed, { maxRetries: 1 }, { clock, random: () => 0 })(model, userContext(), {
      signal: caller.signal,
    });
    const attemptSignal = provider.signals[0]!;
    // The timeouts layer is told of the caller's abort by the retry layer's link, not by a listener of its own.
    expect(abortListenerCount(attemptSignal)).toBe(0);
    expect(abortListenerCount(caller.signal)).toBe(1);
    const reason = new Error("host stopped the turn");
    caller.abort(reason);
    expect(attemptSignal.aborted).toBe(true);
    expect(attemptSignal.reason).toBe(reason);
    expect(await stream.result()).toMatchObject({ stopReason: "aborted", errorMessage: "Request was aborted" });
    expect(provider.signals).toHaveLength(1);
    expect(clock.pendingCount()).toBe(0);
  });

  it("a request after a timed-out one, with the same caller signal, gets a live signal of its own", async () => {
    const clock = createVirtualClock();
    const provider = silentProvider();
    const timed = withStreamTimeouts(provider, { firstEventTimeoutMs: 100, streamIdleTimeoutMs: 0, clock, env: {} });
    const retrying = withLlmRetry(timed, { maxRetries: 0 }, { clock, random: () => 0 });
    const caller = new AbortController();
    const first = await retrying(model, userContext(), { signal: caller.signal });
    await clock.advance(100);
    expect((await first.result()).errorMessage).toMatch(/first_event timeout/);
    expect(abortListenerCount(caller.signal)).toBe(0);
    const second = await retrying(model, userContext(), { signal: caller.signal });
    expect(provider.signals).toHaveLength(2);
    expect(provider.signals[0]!.aborted).toBe(true);
    expect(provider.signals[1]!.aborted).toBe(false);
    caller.abort();
    expect(provider.signals[1]!.aborted).toBe(true);
    expect((await second.result()).stopReason).toBe("aborted");
    expect(abortListenerCount(caller.signal)).toBe(0);
  });

  it("a stream that ends normally leaves no listener on the caller's signal and its attempt signal unaborted", async () => {
    const clock = createVirtualClock();
    const signals: AbortSignal[] = [];
    const provider: StreamFn = (_model, _context, options) => {
      signals.push(options!.signal!);
      const stream = createAssistantMessageEventStream();
      const message = {
        role: "assistant",
        content: [],
        api: "test",
        provider: "test",
        model: "m",
        usage: emptyUsage(),
        stopReason: "stop",
        timestamp: 0,
      } as const;
      queueMicrotask(() => stream.push({ type: "done", reason: "stop", message: message as never }));
      return stream;
    };
    const timed = withStreamTimeouts(provider, { firstEventTimeoutMs: 100, streamIdleTimeoutMs: 100, clock, env: {} });
    const caller = new AbortController();
    const stream = await withLlmRetry(timed, {}, { clock, random: () => 0 })(model, userContext(), {
      signal: caller.signal,
    });
    expect((await stream.result()).stopReason).toBe("stop");
    expect(abortListenerCount(caller.signal)).toBe(0);
    expect(signals[0]!.aborted).toBe(false);
    expect(clock.pendingCount()).toBe(0);
    caller.abort();
    expect(signals[0]!.aborted).toBe(false);
  });

  it("on its own never aborts the caller's signal: the request gets a linked one", async () => {
    const clock = createVirtualClock();
    const provider = silentProvider();
    const caller = new AbortController();
    const stream = await withStreamTimeouts(provider, {
      firstEventTimeoutMs: 100,
      streamIdleTimeoutMs: 0,
      clock,
      env: {},
    })(model, userContext(), {
      signal: caller.signal,
    });
    await clock.advance(100);
    expect((await stream.result()).errorMessage).toMatch(/first_event timeout/);
    expect(provider.signals[0]).not.toBe(caller.signal);
    expect(provider.signals[0]!.aborted).toBe(true);
    expect(caller.signal.aborted).toBe(false);
  });
});
