import { collectStream, createVirtualClock } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import type { StreamFn } from "../../src/call-stack/stream-fn.js";
import { withStreamTimeouts } from "../../src/call-stack/stream-timeouts.js";
import { manualProvider } from "../support/manual-provider.js";
import { userContext } from "../support/user-context.js";

const model = { id: "m", api: "test", provider: "test" } as Parameters<StreamFn>[0];

/** Starts one request with the given limits; answers its collected result and the driven provider. */
function startRequest(firstEventTimeoutMs: number, streamIdleTimeoutMs: number) {
  const clock = createVirtualClock();
  const provider = manualProvider();
  const stream = withStreamTimeouts(provider.streamFn, { firstEventTimeoutMs, streamIdleTimeoutMs, clock, env: {} })(
    model,
    userContext(),
    {},
  );
  return { clock, provider, seen: collectStream(stream) };
}

describe("the stream timeouts use one timer per request where they can", () => {
  it("a request that streams to its end arms one timer, and none is left", async () => {
    const { clock, provider, seen } = startRequest(100, 500);
    await provider.push("start");
    await clock.advance(50);
    await provider.push("done");
    expect((await seen).final.stopReason).toBe("stop");
    expect(clock.scheduledDelays()).toEqual([100]);
    expect(clock.pendingCount()).toBe(0);
  });

  it("a kept first-event timer that fires after the first event waits for the rest of the idle window", async () => {
    const { clock, provider, seen } = startRequest(100, 500);
    await clock.advance(50);
    await provider.push("start");
    // The first-event timer fires at 100 ms and finds 50 ms of silence: the idle timeout is due at 550 ms.
    await clock.advance(499);
    expect(provider.signal()?.aborted).toBe(false);
    await clock.advance(1);
    const result = await seen;
    expect(clock.now()).toBe(550);
    expect(result.final.errorMessage).toMatch(/no event within 500 ms \(idle timeout\)/);
    expect(provider.signal()?.aborted).toBe(true);
    expect(clock.scheduledDelays()).toEqual([100, 450]);
    expect(clock.pendingCount()).toBe(0);
  });

  it("a first-event timer due after the idle window is replaced by the idle timer at the first event", async () => {
    const { clock, provider, seen } = startRequest(1000, 100);
    await clock.advance(300);
    await provider.push("start");
    await clock.advance(99);
    expect(provider.signal()?.aborted).toBe(false);
    await clock.advance(1);
    const result = await seen;
    expect(clock.now()).toBe(400);
    expect(result.final.errorMessage).toMatch(/no event within 100 ms \(idle timeout\)/);
    expect(clock.scheduledDelays()).toEqual([1000, 100]);
    expect(clock.pendingCount()).toBe(0);
  });

  it("a first-event timer due exactly when the idle window ends is kept and times out then", async () => {
    const { clock, provider, seen } = startRequest(300, 100);
    await clock.advance(200);
    await provider.push("start");
    await clock.advance(100);
    const result = await seen;
    expect(clock.now()).toBe(300);
    expect(result.final.errorMessage).toMatch(/no event within 100 ms \(idle timeout\)/);
    expect(clock.scheduledDelays()).toEqual([300]);
  });

  it("without an idle limit the first event clears the first-event timer", async () => {
    const { clock, provider, seen } = startRequest(100, 0);
    await provider.push("start");
    expect(clock.pendingCount()).toBe(0);
    await clock.advance(10_000);
    await provider.push("done");
    expect((await seen).final.stopReason).toBe("stop");
  });

  it("before any event the kept timer is still the first-event timeout", async () => {
    const { clock, provider, seen } = startRequest(100, 500);
    await clock.advance(100);
    const result = await seen;
    expect(result.final.errorMessage).toMatch(/no first event within 100 ms/);
    expect(provider.signal()?.aborted).toBe(true);
    expect(clock.scheduledDelays()).toEqual([100]);
  });
});
