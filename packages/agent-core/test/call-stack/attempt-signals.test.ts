import { createAssistantMessageEventStream, type Model } from "@mariozechner/pi-ai";
import { abortListenerCount, assistantMessage, createVirtualClock } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { withLlmRetry } from "../../src/call-stack/llm-retry.js";
import { LlmTimeoutError } from "../../src/call-stack/stream-errors.js";
import type { StreamFn } from "../../src/call-stack/stream-fn.js";
import { withStreamTimeouts } from "../../src/call-stack/stream-timeouts.js";
import { userContext } from "../support/user-context.js";

const model = { id: "m", api: "test", provider: "test" } as Model<any>;

/**
 * A provider scripted per request: `"answer"` streams a text and `done`,
 * `"silent"` never answers, `"fail"` fails with a retryable error before any
 * output. Records the signal of each request.
 */
function scriptedProvider(script: ("answer" | "silent" | "fail")[]): StreamFn & { signals: AbortSignal[] } {
  const signals: AbortSignal[] = [];
  const fn = ((_model, _context, options) => {
    const step = script[signals.length] ?? "answer";
    signals.push(options!.signal!);
    const stream = createAssistantMessageEventStream();
    const message = assistantMessage([{ type: "text", text: "hi" }], { timestamp: 0 });
    if (step === "answer") {
      stream.push({ type: "start", partial: message });
      stream.push({ type: "text_delta", contentIndex: 0, delta: "hi", partial: message });
      stream.push({ type: "done", reason: "stop", message });
      stream.end();
    } else if (step === "fail") {
      stream.push({
        type: "error",
        reason: "error",
        error: { ...message, content: [], stopReason: "error", errorMessage: "503 Service Unavailable" },
      });
      stream.end();
    }
    return stream;
  }) as StreamFn & { signals: AbortSignal[] };
  fn.signals = signals;
  return fn;
}

function callStack(provider: StreamFn, clock = createVirtualClock()) {
  const timed = withStreamTimeouts(provider, { firstEventTimeoutMs: 100, streamIdleTimeoutMs: 100, clock, env: {} });
  return {
    clock,
    send: withLlmRetry(timed, { maxRetries: 1, baseDelayMs: 10, maxDelayMs: 10 }, { clock, random: () => 0 }),
  };
}

describe("attempt signals across the requests of one caller's signal", () => {
  it("requests that finish leave nothing on the caller's signal, and its later abort reaches none of them", async () => {
    const provider = scriptedProvider(["answer", "answer", "answer"]);
    const { send } = callStack(provider);
    const caller = new AbortController();
    for (let request = 0; request < 3; request++) {
      const stream = await send(model, userContext(), { signal: caller.signal });
      expect((await stream.result()).stopReason).toBe("stop");
      expect(abortListenerCount(caller.signal)).toBe(0);
    }
    expect(provider.signals.map((signal) => signal.aborted)).toEqual([false, false, false]);
    caller.abort();
    expect(provider.signals.map((signal) => signal.aborted)).toEqual([false, false, false]);
  });

  it("a caller abort reaches the request being sent, with the caller's reason", async () => {
    const provider = scriptedProvider(["answer", "silent"]);
    const { send } = callStack(provider);
    const caller = new AbortController();
    expect((await (await send(model, userContext(), { signal: caller.signal })).result()).stopReason).toBe("stop");
    const second = await send(model, userContext(), { signal: caller.signal });
    expect(provider.signals[0]!.aborted).toBe(false);
    expect(abortListenerCount(caller.signal)).toBe(1);
    const reason = new Error("host stopped the turn");
    caller.abort(reason);
    expect(provider.signals[1]!.aborted).toBe(true);
    expect(provider.signals[1]!.reason).toBe(reason);
    expect(provider.signals[0]!.aborted).toBe(false);
    expect(await second.result()).toMatchObject({ stopReason: "aborted" });
    expect(caller.signal.reason).toBe(reason);
    expect(abortListenerCount(caller.signal)).toBe(0);
  });

  it("a timed-out attempt aborts only its own signal: the retry and every later request get a live one", async () => {
    const provider = scriptedProvider(["answer", "silent", "answer", "answer"]);
    const { clock, send } = callStack(provider);
    const caller = new AbortController();
    expect((await (await send(model, userContext(), { signal: caller.signal })).result()).stopReason).toBe("stop");
    const second = await send(model, userContext(), { signal: caller.signal });
    await clock.advance(100);
    expect(provider.signals[0]!.aborted).toBe(false);
    expect(provider.signals[1]!.aborted).toBe(true);
    expect(LlmTimeoutError.isInstance(provider.signals[1]!.reason)).toBe(true);
    await clock.advance(10);
    expect((await second.result()).stopReason).toBe("stop");
    expect(provider.signals[2]).not.toBe(provider.signals[1]);
    expect(provider.signals[2]!.aborted).toBe(false);
    expect((await (await send(model, userContext(), { signal: caller.signal })).result()).stopReason).toBe("stop");
    expect(provider.signals[3]!.aborted).toBe(false);
    expect(caller.signal.aborted).toBe(false);
    expect(abortListenerCount(caller.signal)).toBe(0);
  });

  it("the retry of a failed attempt goes out on a live signal of its own", async () => {
    const provider = scriptedProvider(["fail", "answer", "answer"]);
    const { clock, send } = callStack(provider);
    const caller = new AbortController();
    const first = await send(model, userContext(), { signal: caller.signal });
    await clock.advance(10);
    expect((await first.result()).stopReason).toBe("stop");
    expect(provider.signals[1]).not.toBe(provider.signals[0]);
    expect((await (await send(model, userContext(), { signal: caller.signal })).result()).stopReason).toBe("stop");
    expect(provider.signals[1]!.aborted).toBe(false);
    expect(provider.signals[2]!.aborted).toBe(false);
  });

  it("a request with another caller's signal gets a signal of its own that follows that caller", async () => {
    const provider = scriptedProvider(["answer", "silent"]);
    const { send } = callStack(provider);
    const firstCaller = new AbortController();
    const secondCaller = new AbortController();
    expect((await (await send(model, userContext(), { signal: firstCaller.signal })).result()).stopReason).toBe("stop");
    const second = await send(model, userContext(), { signal: secondCaller.signal });
    expect(provider.signals[1]).not.toBe(provider.signals[0]);
    firstCaller.abort();
    expect(provider.signals[1]!.aborted).toBe(false);
    secondCaller.abort();
    expect(provider.signals[1]!.aborted).toBe(true);
    expect((await second.result()).stopReason).toBe("aborted");
  });

  it("a request sent after the caller's signal fired ends aborted, and the earlier request's signal stays unfired", async () => {
    const provider = scriptedProvider(["answer", "answer"]);
    const { send } = callStack(provider);
    const caller = new AbortController();
    expect((await (await send(model, userContext(), { signal: caller.signal })).result()).stopReason).toBe("stop");
    const reason = new Error("stopped between requests");
    caller.abort(reason);
    expect(provider.signals[0]!.aborted).toBe(false);
    const second = await send(model, userContext(), { signal: caller.signal });
    expect((await second.result()).stopReason).toBe("aborted");
    expect(abortListenerCount(caller.signal)).toBe(0);
  });
});
