import { createAssistantMessageEventStream, type AssistantMessageEvent } from "@mariozechner/pi-ai";
import { describe, expect, it, vi } from "vitest";
import { classifyError } from "../../src/call-stack/classify-error.js";
import { TURN_DEFAULTS } from "../../src/defaults.js";
import type { LlmRetryNotification } from "../../src/call-stack/llm-config.js";
import {
  computeRetryDelayMs,
  isVisibleOutputEvent,
  resolveLlmRetryPolicy,
  withLlmRetry,
} from "../../src/call-stack/llm-retry.js";
import { pipeEvents } from "../../src/call-stack/relay-stream.js";
import { STREAM_ENDED_WITHOUT_FINAL_EVENT } from "../../src/call-stack/stream-errors.js";
import type { StreamFn } from "../../src/call-stack/stream-fn.js";
import {
  assistantMessage,
  collectStream,
  createScriptedModel,
  createVirtualClock,
  errorAfter,
  hang,
  response,
  text,
  thinking,
  throwSync,
  toolCall,
  type ScriptEntry,
} from "@turnkit/agent-loop/testing";
import { receiveOptions } from "../support/received-options.js";
import { userContext } from "../support/user-context.js";

const { model } = createScriptedModel();
const context = userContext();

/**
 * A retrying stream function over `script`, on an auto-advancing virtual
 * clock, recording notifications and the options each attempt was sent with.
 */
function setup(script: ScriptEntry[], options: Parameters<typeof withLlmRetry>[1] = {}, random = () => 0.5) {
  const clock = createVirtualClock({ autoAdvance: true });
  const notifications: LlmRetryNotification[] = [];
  const inner = createScriptedModel(script);
  const attempts = receiveOptions(inner.streamFn);
  const retrying = withLlmRetry(
    attempts.streamFn,
    options === false ? false : { ...options, observer: (n) => void notifications.push(n) },
    { clock, random },
  );
  return { clock, notifications, inner, received: attempts.received, retrying };
}

describe("retry policy", () => {
  it("defaults to 5 retries, 1 s base, 30 s cap, 120 s budget", () => {
    expect(resolveLlmRetryPolicy()).toEqual({
      maxRetries: 5,
      baseDelayMs: 1000,
      maxDelayMs: 30_000,
      maxRetryElapsedMs: 120_000,
    });
    expect([
      TURN_DEFAULTS.llmRetryMaxRetries,
      TURN_DEFAULTS.llmRetryBaseDelayMs,
      TURN_DEFAULTS.llmRetryMaxDelayMs,
      TURN_DEFAULTS.llmRetryMaxElapsedMs,
    ]).toEqual([5, 1000, 30_000, 120_000]);
    expect(resolveLlmRetryPolicy({ maxRetries: 2, baseDelayMs: 10 })).toMatchObject({ maxRetries: 2, baseDelayMs: 10 });
  });

  it.each([{ maxRetries: -1 }, { maxRetries: 1.5 }, { baseDelayMs: Number.NaN }, { maxDelayMs: -3 }])(
    "rejects %j",
    (options) => {
      expect(() => resolveLlmRetryPolicy(options)).toThrow(expect.objectContaining({ code: "invalid_turn_input" }));
    },
  );

  it("uses exponential backoff from 1 s with equal jitter, capped at 30 s", () => {
    const policy = resolveLlmRetryPolicy();
    const delays = (random: number) =>
      [1, 2, 3, 4, 5, 6].map((retry) => computeRetryDelayMs({ retry, policy, random: () => random }));
    expect(delays(0)).toEqual([500, 1000, 2000, 4000, 8000, 15_000]);
    expect(delays(0.5)).toEqual([750, 1500, 3000, 6000, 12_000, 22_500]);
    expect(delays(0.999_999)).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000]);
  });

  it("honours the provider's Retry-After, capped at 30 s", () => {
    const policy = resolveLlmRetryPolicy();
    expect(computeRetryDelayMs({ retry: 1, policy, random: () => 0, retryAfterMs: 2500 })).toBe(2500);
    expect(computeRetryDelayMs({ retry: 1, policy, random: () => 0, retryAfterMs: 90_000 })).toBe(30_000);
  });

  it("visible output is a non-empty text or thinking delta, or any tool-call event", () => {
    const partial = assistantMessage([], { timestamp: 0 });
    expect(isVisibleOutputEvent({ type: "start", partial })).toBe(false);
    expect(isVisibleOutputEvent({ type: "text_start", contentIndex: 0, partial })).toBe(false);
    expect(isVisibleOutputEvent({ type: "text_delta", contentIndex: 0, delta: "", partial })).toBe(false);
    expect(isVisibleOutputEvent({ type: "text_delta", contentIndex: 0, delta: "a", partial })).toBe(true);
    expect(isVisibleOutputEvent({ type: "thinking_delta", contentIndex: 0, delta: "hm", partial })).toBe(true);
    expect(isVisibleOutputEvent({ type: "toolcall_start", contentIndex: 0, partial })).toBe(true);
  });
});

describe("withLlmRetry", () => {
  it("retries a failure before visible output and replays the next attempt once", async () => {
    const { inner, received, retrying, notifications, clock } = setup([
      // start, an empty text block opened and closed: nothing visible yet.
      errorAfter(3, "429 Rate limit reached", { response: response("") }),
      "Hello world",
    ]);
    const result = await collectStream(retrying(model, context, {}));
    expect(result.text).toBe("Hello world");
    expect(result.types).toEqual(["start", "text_start", "text_delta", "text_delta", "text_end", "done"]);
    expect(inner.requests).toHaveLength(2);
    expect(clock.scheduledDelays()).toEqual([750]);
    expect(notifications).toEqual([
      {
        type: "waiting",
        label: "main",
        attempt: 1,
        delayMs: 750,
        error: expect.objectContaining({ code: "rate_limited", status: 429 }),
      },
      { type: "recovered", label: "main", attempt: 2 },
    ]);
    // The abandoned attempt was closed through its own signal.
    expect(received[0]?.signal?.aborted).toBe(true);
    expect(received[1]?.signal?.aborted).toBe(false);
  });

  it("sends every attempt with maxRetries 0, also when retry is off", async () => {
    const on = setup([errorAfter(1, "503 busy"), "ok"]);
    await collectStream(on.retrying(model, context, { maxRetries: 7 }));
    expect(on.inner.requests.map((request) => request.options.maxRetries)).toEqual([0, 0]);

    const off = setup([errorAfter(1, "503 busy"), "ok"], false);
    const result = await collectStream(off.retrying(model, context, { maxRetries: 7 }));
    expect(off.inner.requests).toHaveLength(1);
    expect(off.inner.requests[0].options.maxRetries).toBe(0);
    expect(result.final).toMatchObject({ stopReason: "error", errorMessage: "503 busy" });
  });

  it("does not retry after visible output; the failure is final and classified", async () => {
    const { inner, retrying, notifications } = setup([
      errorAfter(3, "503 upstream died", { response: "Hel" }),
      "never",
    ]);
    const result = await collectStream(retrying(model, context, {}));
    expect(inner.requests).toHaveLength(1);
    expect(result.text).toBe("Hel");
    expect(result.final.stopReason).toBe("error");
    expect(classifyError(result.final)).toMatchObject({ code: "upstream" });
    expect(notifications).toEqual([]);
  });

  it("commits on thinking and tool calls too", async () => {
    const thinks = setup([response([thinking("hmm"), text("done")])]);
    expect((await collectStream(thinks.retrying(model, context, {}))).types).toEqual([
      "start",
      "thinking_start",
      "thinking_delta",
      "thinking_end",
      "text_start",
      "text_delta",
      "text_end",
      "done",
    ]);
    const tool = setup([response([toolCall("read", { path: "a" })], { chunkSize: 100 })]);
    const result = await collectStream(tool.retrying(model, context, {}));
    expect(result.types).toEqual(["start", "toolcall_start", "toolcall_delta", "toolcall_end", "done"]);
    expect(result.final.stopReason).toBe("toolUse");
  });

  it.each([
    "400 bad request body",
    "401 Incorrect API key",
    "403 forbidden",
    "400 Your input exceeds the context window of this model",
  ])("never retries %j", async (message) => {
    const { inner, retrying, notifications } = setup([errorAfter(1, message), "x"]);
    const result = await collectStream(retrying(model, context, {}));
    expect(inner.requests).toHaveLength(1);
    expect(result.final.errorMessage).toBe(message);
    expect(notifications).toEqual([]);
  });

  it("a TLS bad-record-mac failure before any output is retried as network, not failed as upstream", async () => {
    const { inner, retrying, notifications } = setup([
      errorAfter(1, "net::ERR_SSL_BAD_RECORD_MAC_ALERT"),
      throwSync(
        Object.assign(new Error("decryption failed or bad record mac"), {
          code: "ERR_SSL_DECRYPTION_FAILED_OR_BAD_RECORD_MAC",
        }),
      ),
      "after TLS",
    ]);
    const result = await collectStream(retrying(model, context, {}));
    expect(result.text).toBe("after TLS");
    expect(inner.requests).toHaveLength(3);
    expect(notifications.filter((n) => n.type === "waiting")).toEqual([
      expect.objectContaining({ error: expect.objectContaining({ code: "network", retryable: true }) }),
      expect.objectContaining({ error: expect.objectContaining({ code: "network", retryable: true }) }),
    ]);
  });

  it("a provider stream that ends with no event at all is retried as network, not failed as upstream", async () => {
    const clock = createVirtualClock({ autoAdvance: true });
    const notifications: LlmRetryNotification[] = [];
    const answer = createScriptedModel(["second try"]);
    let calls = 0;
    const silentThenAnswer: StreamFn = (m, c, o) => {
      calls += 1;
      if (calls > 1) return answer.streamFn(m, c, o);
      const empty = createAssistantMessageEventStream();
      queueMicrotask(() => empty.end());
      return empty;
    };
    const retrying = withLlmRetry(
      silentThenAnswer,
      { observer: (n) => void notifications.push(n) },
      { clock, random: () => 0.5 },
    );
    const result = await collectStream(retrying(model, context, {}));
    expect(result.text).toBe("second try");
    expect(calls).toBe(2);
    expect(notifications[0]).toMatchObject({
      type: "waiting",
      error: { code: "network", retryable: true, message: STREAM_ENDED_WITHOUT_FINAL_EVENT },
    });
  });

  it.each([
    "429 token plan exhausted",
    '[Error] 429 {"error":{"message":"token plan exhausted"}}',
    "usage limit reached",
    "429 You exceeded your current quota, please check your plan and billing details.",
  ])("a quota failure %j is sent once, never retried five times", async (message) => {
    const { inner, retrying, notifications, clock } = setup([errorAfter(1, message), "never"]);
    const result = await collectStream(retrying(model, context, {}));
    expect(inner.requests).toHaveLength(1);
    expect(clock.scheduledDelays()).toEqual([]);
    expect(classifyError(result.final)).toMatchObject({ code: "quota", retryable: false });
    expect(notifications).toEqual([]);
  });

  it("gives up after 5 retries and reports exhausted with the final error", async () => {
    const failures: ScriptEntry[] = Array.from({ length: 6 }, (_, i) => errorAfter(1, `503 attempt ${i + 1}`));
    const { inner, retrying, notifications, clock } = setup([...failures, "late"], {}, () => 0);
    const result = await collectStream(retrying(model, context, {}));
    expect(inner.requests).toHaveLength(6);
    expect(clock.scheduledDelays()).toEqual([500, 1000, 2000, 4000, 8000]);
    expect(result.final.errorMessage).toBe("503 attempt 6");
    expect(notifications.map((n) => n.type)).toEqual([
      "waiting",
      "waiting",
      "waiting",
      "waiting",
      "waiting",
      "exhausted",
    ]);
    expect(notifications.at(-1)).toMatchObject({
      type: "exhausted",
      attempts: 6,
      reason: "max_retries",
      error: { code: "upstream", message: "503 attempt 6" },
    });
  });

  it("stops before a wait that would pass 120 s since the first failure", async () => {
    const slowDown = errorAfter(1, "429 Rate limit. Please try again in 30s.");
    const { inner, retrying, notifications, clock } = setup(Array.from({ length: 7 }, () => slowDown));
    const result = await collectStream(retrying(model, context, {}));
    // 30 + 30 + 30 + 30 = 120 s is allowed; a fifth wait would end at 150 s.
    expect(clock.scheduledDelays()).toEqual([30_000, 30_000, 30_000, 30_000]);
    expect(inner.requests).toHaveLength(5);
    expect(clock.now()).toBe(120_000);
    expect(result.final.stopReason).toBe("error");
    expect(notifications.at(-1)).toMatchObject({ type: "exhausted", attempts: 5, reason: "max_elapsed" });
  });

  it("honours Retry-After headers on an error a stream function throws", async () => {
    const limited = Object.assign(new Error("Too many requests"), {
      status: 429,
      headers: new Headers({ "retry-after": "3" }),
    });
    const { retrying, clock, inner } = setup([throwSync(limited), "ok"]);
    const result = await collectStream(retrying(model, context, {}));
    expect(result.text).toBe("ok");
    expect(clock.scheduledDelays()).toEqual([3000]);
    expect(inner.requests).toHaveLength(2);
  });

  it("an abort during backoff ends at once as aborted and reports cancelled", async () => {
    const clock = createVirtualClock();
    const notifications: LlmRetryNotification[] = [];
    const inner = createScriptedModel([errorAfter(1, "503 busy"), "never"]);
    const controller = new AbortController();
    const retrying = withLlmRetry(
      inner.streamFn,
      { observer: (n) => void notifications.push(n) },
      { clock, random: () => 0 },
    );
    const stream = retrying(model, context, { signal: controller.signal });
    await vi.waitFor(() => expect(clock.pendingCount()).toBe(1));
    controller.abort();
    const result = await collectStream(stream);
    expect(result.final.stopReason).toBe("aborted");
    expect(classifyError(result.final).aborted).toBe(true);
    expect(inner.requests).toHaveLength(1);
    expect(clock.pendingCount()).toBe(0);
    expect(notifications.map((n) => n.type)).toEqual(["waiting", "cancelled"]);
  });

  it("an abort during an attempt is aborted, not retried", async () => {
    const { inner, retrying, notifications } = setup([hang({ afterEvents: 1 }), "never"]);
    const controller = new AbortController();
    const stream = retrying(model, context, { signal: controller.signal });
    await vi.waitFor(() => expect(inner.requests).toHaveLength(1));
    controller.abort();
    const result = await collectStream(stream);
    expect(result.final.stopReason).toBe("aborted");
    expect(inner.requests).toHaveLength(1);
    expect(notifications).toEqual([]);
  });

  it("an already-aborted signal sends nothing", async () => {
    const { inner, retrying } = setup(["never"]);
    const result = await collectStream(retrying(model, context, { signal: AbortSignal.abort() }));
    expect(inner.requests).toHaveLength(0);
    expect(result.types).toEqual(["error"]);
    expect(result.final.stopReason).toBe("aborted");
  });

  it("swallows observer errors, sync and async", async () => {
    const clock = createVirtualClock({ autoAdvance: true });
    const inner = createScriptedModel([errorAfter(1, "503 busy"), "fine"]);
    let calls = 0;
    const observer = (n: LlmRetryNotification) => {
      calls += 1;
      if (n.type === "waiting") throw new Error("observer broke");
      return Promise.reject(new Error("async observer broke"));
    };
    const result = await collectStream(withLlmRetry(inner.streamFn, { observer }, { clock })(model, context, {}));
    expect(result.text).toBe("fine");
    expect(calls).toBe(2);
  });

  it("labels the notifications of each wrapper", async () => {
    const clock = createVirtualClock({ autoAdvance: true });
    const seen: LlmRetryNotification[] = [];
    const inner = createScriptedModel([errorAfter(1, "502 bad gateway"), "ok"]);
    const auxiliary = withLlmRetry(
      inner.streamFn,
      { observer: (n) => void seen.push(n) },
      { clock, label: "auxiliary" },
    );
    await collectStream(auxiliary(model, context, {}));
    expect(seen.map((n) => n.label)).toEqual(["auxiliary", "auxiliary"]);
  });

  it("honours a custom policy", async () => {
    const { inner, retrying, clock } = setup(
      [errorAfter(1, "500 a"), errorAfter(1, "500 b"), "x"],
      { maxRetries: 1, baseDelayMs: 10 },
      () => 0,
    );
    const result = await collectStream(retrying(model, context, {}));
    expect(inner.requests).toHaveLength(2);
    expect(clock.scheduledDelays()).toEqual([5]);
    expect(result.final.errorMessage).toBe("500 b");
  });

  it("a wait stated as 'retry after 20 seconds' in the error text is honoured", async () => {
    const { retrying, clock } = setup([errorAfter(1, "503 busy, retry after 20 seconds"), "ok"]);
    expect((await collectStream(retrying(model, context, {}))).text).toBe("ok");
    expect(clock.scheduledDelays()).toEqual([20_000]);
  });
});

describe("withLlmRetry: what the caller sees, in order, when a request ends early", () => {
  const message = assistantMessage([{ type: "text", text: "a" }], { timestamp: 0 });
  const start: AssistantMessageEvent = { type: "start", partial: message };
  const delta: AssistantMessageEvent = { type: "text_delta", contentIndex: 0, delta: "a", partial: message };
  const failure = (errorMessage: string): AssistantMessageEvent => ({
    type: "error",
    reason: "error",
    error: { ...message, content: [], stopReason: "error", errorMessage },
  });

  /** A provider whose one stream the test pushes into; it ignores its signal. */
  function drivenProvider() {
    const stream = createAssistantMessageEventStream();
    const streamFn: StreamFn = () => stream;
    return { streamFn, stream };
  }

  /** The caller's view of `out`: event types (an error with its stopReason), read with `for await`; `onEvent` may act on each. */
  async function seen(out: ReturnType<StreamFn>, onEvent?: (type: string) => void): Promise<string[]> {
    const types: string[] = [];
    for await (const event of await out) {
      const type = event.type === "error" ? `error:${event.error.stopReason}` : event.type;
      types.push(type);
      onEvent?.(type);
    }
    return types;
  }

  it("a caller abort before the first visible output drops the held-back events with the attempt", async () => {
    const caller = new AbortController();
    const provider = drivenProvider();
    const out = withLlmRetry(provider.streamFn, {}, {})(model, userContext(), { signal: caller.signal });
    const reading = seen(out);
    provider.stream.push(start);
    await Promise.resolve();
    caller.abort();
    provider.stream.push({
      type: "error",
      reason: "aborted",
      error: { ...message, stopReason: "aborted", errorMessage: "aborted" },
    });
    expect(await reading).toEqual(["error:aborted"]);
  });

  it("a failure that is not retried ends the request with that error and no notice", async () => {
    const provider = drivenProvider();
    const notices: LlmRetryNotification[] = [];
    const out = withLlmRetry(provider.streamFn, { observer: (notice) => void notices.push(notice) }, {})(
      model,
      userContext(),
      {},
    );
    provider.stream.push(failure("400 Bad Request: invalid model"));
    expect(await seen(out)).toEqual(["error:error"]);
    expect(notices).toEqual([]);
  });

  it("a retryable failure with no retries left ends the request after one exhausted notice", async () => {
    const provider = drivenProvider();
    const notices: LlmRetryNotification[] = [];
    const out = withLlmRetry(provider.streamFn, { maxRetries: 0, observer: (notice) => void notices.push(notice) }, {})(
      model,
      userContext(),
      {},
    );
    provider.stream.push(failure("503 Service Unavailable"));
    expect(await seen(out)).toEqual(["error:error"]);
    expect(notices.map((notice) => notice.type)).toEqual(["exhausted"]);
  });

  it("a caller abort right after the first visible output, from a provider that ignores it, ends after that output", async () => {
    const caller = new AbortController();
    const provider = drivenProvider();
    const out = withLlmRetry(provider.streamFn, {}, {})(model, userContext(), { signal: caller.signal });
    // Read as the layer above reads it, so the abort comes while the delta is being handled.
    const types: string[] = [];
    const ended = new Promise<void>((resolve) =>
      pipeEvents(out as AsyncIterable<AssistantMessageEvent>, {
        event: (event) => {
          types.push(event.type === "error" ? `error:${event.error.stopReason}` : event.type);
          if (event.type === "text_delta") caller.abort();
          // After a terminal event a sink may not be told of the end (EventSink's contract).
          if (event.type === "error" || event.type === "done") resolve();
        },
        end: resolve,
        fail: resolve,
      }),
    );
    provider.stream.push(start);
    provider.stream.push(delta);
    await ended;
    expect(types).toEqual(["start", "text_delta", "error:aborted"]);
  });
});
