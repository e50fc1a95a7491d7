import { createAssistantMessageEventStream, type Model } from "@mariozechner/pi-ai";
import { createVirtualClock } from "@turnkit/agent-loop/testing";
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
    const stream = await withLlmRetry(timed, { maxRetries: 1, baseDelayMs: 10, maxDelayMs: 10 }, { clock, random: () => 0 })(model, userContext(), {
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
    caller.abort();
    expect(provider.signals[1]!.aborted).toBe(true);
    expect((await stream.result()).stopReason).toBe("aborted");
    expect(caller.signal.reason).not.toBeInstanceOf(LlmTimeoutError);
  });

  it("on its own never aborts the caller's signal: the request gets a linked one", async () => {
    const clock = createVirtualClock();
    const provider = silentProvider();
    const caller = new AbortController();
    const stream = await withStreamTimeouts(provider, { firstEventTimeoutMs: 100, streamIdleTimeoutMs: 0, clock, env: {} })(model, userContext(), {
      signal: caller.signal,
    });
    await clock.advance(100);
    expect((await stream.result()).errorMessage).toMatch(/first_event timeout/);
    expect(provider.signals[0]).not.toBe(caller.signal);
    expect(provider.signals[0]!.aborted).toBe(true);
    expect(caller.signal.aborted).toBe(false);
  });
});
