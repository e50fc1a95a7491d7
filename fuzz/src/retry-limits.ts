// Why this file is long: the generator, the provider it drives and the plain model of the retry rules are one case; split, the model would be read apart from the attempts it predicts.
/**
 * Generated provider failures at the transport retry layer's limits: a
 * request whose attempts fail before any output (statuses of every class,
 * a status only in the response, a network reset, a stream that goes
 * silent until a watchdog ends it, events that show nothing: `start`, an
 * empty text or thinking delta), fail after visible output (text, thinking
 * or a tool call), or answer; each after a latency on the virtual clock,
 * some exactly one millisecond either side of the first-event timeout;
 * with a Retry-After (header in milliseconds or seconds, or in the error
 * text) at 0, at the wait cap or one millisecond either side of it, or
 * ending exactly at the elapsed budget or one millisecond either side; the
 * default policy (5 retries, 1 s base, 30 s cap, 120 s budget) or a
 * generated one; any jitter; and now and then the caller's abort in an
 * attempt or a wait. Each case runs through `withLlmRetry` alone or as a
 * `PiTurnRunner` turn's main request, and is compared with the rules of
 * the agent-core README written plainly: when each attempt is sent, what
 * the observer is told, and how the request ends.
 */
import {
  createAssistantMessageEventStream,
  type AssistantMessage,
  type AssistantMessageEvent,
  type AssistantMessageEventStream,
  type Context,
} from "@mariozechner/pi-ai";
import { collectStream, createVirtualClock, emptyUsage, type VirtualClock } from "@turnkit/agent-loop/testing";
import {
  PiTurnRunner,
  withLlmRetry,
  type LlmRetryNotification,
  type LlmRetryObserver,
  type LlmRetryOptions,
  type StreamFn,
} from "@turnkit/agent-core";
import type { RuntimeEvent, TurnOutcome } from "@turnkit/protocol";
import fc from "fast-check";
import { oneIn } from "./response-arbitraries.js";
import { driveUntilSettled } from "./virtual-time.js";

/** A failure before output, as a provider reports it: its text, the status of its response (when reported), whether the rules retry it. */
interface FailureKind {
  text: string;
  status?: number;
  retryable: boolean;
}

/** Every class the rules tell apart: 429, 408, 5xx but 501, 529 and resets are retried; auth, quota, 400s and 501 never. */
const FAILURES: readonly FailureKind[] = [
  { text: "429 Too Many Requests: rate limit exceeded", retryable: true },
  { text: "408 Request Timeout", retryable: true },
  { text: "500 Internal Server Error", retryable: true },
  { text: "502 Bad Gateway", retryable: true },
  { text: "503 Service Unavailable", retryable: true },
  { text: "504 Gateway Timeout", retryable: true },
  { text: '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', retryable: true },
  { text: "ECONNRESET socket hang up", retryable: true },
  { text: "Provider returned an error", status: 503, retryable: true },
  { text: "Provider returned an error", status: 429, retryable: true },
  { text: "501 Not Implemented", retryable: false },
  { text: "400 Bad Request: invalid request", retryable: false },
  { text: "401 Unauthorized: invalid api key", retryable: false },
  { text: "403 Forbidden", retryable: false },
  { text: "429 You exceeded your current quota, please check your plan and billing details.", retryable: false },
  { text: "400 prompt is too long: 213462 tokens > 200000 maximum", retryable: false },
  { text: "Provider returned an error", status: 401, retryable: false },
];

/** Where a Retry-After hint is: a header in milliseconds, a header in seconds, or the error text. */
type HintCarrier = "retry-after-ms" | "retry-after" | "text";

/** A Retry-After value: fixed, or relative to the wait cap or to the end of the elapsed budget (resolved by the plain model). */
type HintValue = { at: "ms"; ms: number } | { at: "cap" | "budget"; delta: -1 | 0 | 1 };

/** When an attempt's first event comes: at once, after a while, or one millisecond before or after the first-event timeout. */
type Latency = { at: "ms"; ms: number } | { at: "firstEventTimeout"; delta: -1 | 1 };

/** Events an attempt may stream before failing that show the caller nothing. */
type Prelude = "none" | "start" | "emptyText" | "emptyThinking";

/** One attempt of the request. An attempt past the list answers. */
export type RetryAttempt =
  /** `whole`: the text comes without deltas, in the `done` event alone (a stream function of a non-streaming API), or only at `text_end`. */
  | { kind: "answer"; latency: Latency; whole?: "done" | "textEnd" }
  | {
      kind: "failBefore";
      latency: Latency;
      prelude: Prelude;
      failure: number;
      hint?: { via: HintCarrier; value: HintValue };
    }
  | { kind: "failAfter"; latency: Latency; visible: "text" | "thinking" | "toolCall"; failure: number }
  | { kind: "silent"; latency: Latency; prelude: Prelude };

/** A generated case. */
export interface RetryLimitsCase {
  /** Omitted fields take the defaults; `undefined` sends no policy at all; `false` turns retrying off (one attempt, no observer). */
  policy: Pick<LlmRetryOptions, "maxRetries" | "baseDelayMs" | "maxDelayMs" | "maxRetryElapsedMs"> | undefined | false;
  /** The two watchdogs; `undefined` takes the default (120 s, 300 s). */
  firstEventTimeoutMs: number | undefined;
  streamIdleTimeoutMs: number | undefined;
  jitter: number;
  attempts: RetryAttempt[];
  /** The caller aborts this long (virtual ms, half a millisecond off every whole one) after the request was sent. */
  abortAtMs: number | undefined;
  path: "layer" | "turn";
  /** The observer fails after noting each notice (it throws, or answers a rejected promise): nothing changes. */
  observerFails?: "throw" | "reject";
}

const latencyArbitrary: fc.Arbitrary<Latency> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Latency>({ at: "ms", ms: 0 }) },
  { weight: 2, arbitrary: fc.constantFrom(1, 250, 999, 20_000, 61_000).map((ms): Latency => ({ at: "ms", ms })) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(-1 as const, 1 as const).map((delta): Latency => ({ at: "firstEventTimeout", delta })),
  },
);

const preludeArbitrary = fc.constantFrom<Prelude>("none", "start", "emptyText", "emptyThinking");

const hintArbitrary = fc.record({
  via: fc.constantFrom<HintCarrier>("retry-after-ms", "retry-after", "text"),
  value: fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(0, 1, 1_500, 29_999).map((ms): HintValue => ({ at: "ms", ms })) },
    {
      weight: 2,
      arbitrary: fc.record({
        at: fc.constantFrom("cap" as const, "budget" as const),
        delta: fc.constantFrom(-1 as const, 0 as const, 1 as const),
      }),
    },
  ),
});

const failureIndex = fc.integer({ min: 0, max: FAILURES.length - 1 });
/** Mostly failures the rules retry, so the limits are reached. */
const retryableIndex = fc.constantFrom(...FAILURES.flatMap((failure, index) => (failure.retryable ? [index] : [])));

const attemptArbitrary: fc.Arbitrary<RetryAttempt> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.record(
      {
        kind: fc.constant("answer" as const),
        latency: latencyArbitrary,
        whole: fc.constantFrom("done" as const, "textEnd" as const),
      },
      { requiredKeys: ["kind", "latency"] },
    ),
  },
  {
    weight: 8,
    arbitrary: fc.record(
      {
        kind: fc.constant("failBefore" as const),
        latency: latencyArbitrary,
        prelude: preludeArbitrary,
        failure: fc.oneof({ weight: 5, arbitrary: retryableIndex }, { weight: 1, arbitrary: failureIndex }),
        hint: hintArbitrary,
      },
      { requiredKeys: ["kind", "latency", "prelude", "failure"] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("failAfter" as const),
      latency: latencyArbitrary,
      visible: fc.constantFrom("text" as const, "thinking" as const, "toolCall" as const),
      failure: retryableIndex,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("silent" as const),
      latency: latencyArbitrary,
      prelude: preludeArbitrary,
    }),
  },
);

/** Defaults (four cases in nine), retrying off (one in nine), or a policy with up to four fields set. */
const policyArbitrary: fc.Arbitrary<RetryLimitsCase["policy"]> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constant(false as const) },
  { weight: 2, arbitrary: fc.constant({}) },
  {
    weight: 4,
    arbitrary: fc.record(
      {
        maxRetries: fc.constantFrom(0, 1, 5, 6),
        baseDelayMs: fc.constantFrom(0, 1, 1_000, 7_000),
        maxDelayMs: fc.constantFrom(0, 2_000, 30_000),
        maxRetryElapsedMs: fc.constantFrom(0, 5_000, 120_000),
      },
      { requiredKeys: [] },
    ),
  },
);

/** Cases: up to eight attempts (enough to pass five retries), any policy, now and then an abort. */
export const retryLimitsArbitrary: fc.Arbitrary<RetryLimitsCase> = fc
  .record({
    policy: policyArbitrary,
    firstEventTimeoutMs: fc.constantFrom(undefined, 0, 1_000, 30_000),
    streamIdleTimeoutMs: fc.constantFrom(undefined, 0, 2_000),
    jitter: fc.oneof(fc.constantFrom(0, 0.5, 0.999_999), fc.double({ min: 0, max: 0.999_999, noNaN: true })),
    attempts: fc.array(attemptArbitrary, { minLength: 1, maxLength: 8 }),
    abortAtMs: oneIn(
      4,
      fc.integer({ min: 0, max: 400_000 }).map((ms) => ms + 0.5),
    ),
    path: fc.constantFrom("layer" as const, "turn" as const),
    observerFails: oneIn(4, fc.constantFrom("throw" as const, "reject" as const)),
  })
  // An attempt that stays silent with its watchdog off waits for the caller: the caller aborts 10 s into it.
  .map((scenario) => {
    const expected = expectedRetry(scenario);
    if (expected.ending !== "hangs") return scenario;
    return { ...scenario, abortAtMs: expected.sentAt.at(-1)! + 10_000.5 };
  });

/** The limits as the agent-core README states them, written out here (not read from the library). */
const DEFAULTS = {
  maxRetries: 5,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
  maxRetryElapsedMs: 120_000,
  firstEventTimeoutMs: 120_000,
  streamIdleTimeoutMs: 300_000,
};

/** One model request's timeout in a turn: a case whose plain timeline passes it is not a case of the retry layer alone. */
const REQUEST_TIMEOUT_MS = 20 * 60 * 1000;

/** How one attempt ends in the plain model. */
type AttemptEnd = "answer" | "failBefore" | "failAfter" | "timeout" | "hang" | "aborted";

/** What the plain model says happens: when each attempt is sent, what it ended with, the notices, the ending. */
export interface RetryExpectation {
  sentAt: number[];
  ends: AttemptEnd[];
  /** The Retry-After each failed attempt reports, resolved to milliseconds (index: attempt - 1). */
  hints: (number | undefined)[];
  notices: string[];
  /** `hangs`: an attempt stays silent with its watchdog off and no abort comes (the generator adds one). */
  ending: "answered" | "failed" | "aborted" | "hangs";
  /** For a failure: text the final error message contains. */
  errorIncludes?: string;
  /** The request's timeline passes a turn's request timeout (the turn path does not model it). */
  passesRequestTimeout: boolean;
}

function limitsOf(scenario: RetryLimitsCase) {
  const policy = scenario.policy || {};
  return {
    maxRetries: scenario.policy === false ? 0 : (policy.maxRetries ?? DEFAULTS.maxRetries),
    baseDelayMs: policy.baseDelayMs ?? DEFAULTS.baseDelayMs,
    maxDelayMs: policy.maxDelayMs ?? DEFAULTS.maxDelayMs,
    maxRetryElapsedMs: policy.maxRetryElapsedMs ?? DEFAULTS.maxRetryElapsedMs,
    firstEventTimeoutMs: scenario.firstEventTimeoutMs ?? DEFAULTS.firstEventTimeoutMs,
    streamIdleTimeoutMs: scenario.streamIdleTimeoutMs ?? DEFAULTS.streamIdleTimeoutMs,
  };
}

function attemptAt(scenario: RetryLimitsCase, index: number): RetryAttempt {
  return scenario.attempts[index] ?? { kind: "answer", latency: { at: "ms", ms: 0 } };
}

function latencyMs(latency: Latency, firstEventTimeoutMs: number): number {
  if (latency.at === "ms") return latency.ms;
  // Relative to a disabled timeout: a while, never a timeout.
  return firstEventTimeoutMs > 0 ? Math.max(0, firstEventTimeoutMs + latency.delta) : 5_000;
}

/**
 * The rules, written plainly: attempts one after the other; a failure
 * before visible output (or a watchdog's timeout) is retried when
 * retryable and retries are left, after the provider's Retry-After (else
 * base · 2^(retry-1) with equal jitter), each wait at most the cap, unless
 * the wait would end after the budget measured from the first failure; a
 * failure after visible output is final; the caller's abort ends it all.
 */
export function expectedRetry(scenario: RetryLimitsCase): RetryExpectation {
  const expected = expectedAttempts(scenario);
  // Retrying off: one attempt, and no observer to tell anything.
  return scenario.policy === false ? { ...expected, notices: [] } : expected;
}

function expectedAttempts(scenario: RetryLimitsCase): RetryExpectation {
  const limits = limitsOf(scenario);
  const abortAt = scenario.abortAtMs ?? Number.POSITIVE_INFINITY;
  const sentAt: number[] = [];
  const ends: AttemptEnd[] = [];
  const hints: (number | undefined)[] = [];
  const notices: string[] = [];
  let now = 0;
  let waits = 0;
  let firstFailureAt: number | undefined;
  const aborted = (): RetryExpectation => {
    if (waits > 0) notices.push(`cancelled ${waits + 1}`);
    return { sentAt, ends, hints, notices, ending: "aborted", passesRequestTimeout: now > REQUEST_TIMEOUT_MS };
  };
  for (let index = 0; ; index++) {
    const attempt = attemptAt(scenario, index);
    sentAt.push(now);
    const latency = latencyMs(attempt.latency, limits.firstEventTimeoutMs);
    const firstEventTimesOut = limits.firstEventTimeoutMs > 0 && latency >= limits.firstEventTimeoutMs;
    // When the attempt ends, and how, before an abort is considered.
    let end: AttemptEnd;
    let endAt: number;
    if (firstEventTimesOut) {
      end = "timeout";
      endAt = now + limits.firstEventTimeoutMs;
    } else if (attempt.kind === "silent") {
      if (attempt.prelude === "none") {
        end = limits.firstEventTimeoutMs > 0 ? "timeout" : "hang";
        endAt = limits.firstEventTimeoutMs > 0 ? now + limits.firstEventTimeoutMs : Number.POSITIVE_INFINITY;
      } else {
        end = limits.streamIdleTimeoutMs > 0 ? "timeout" : "hang";
        endAt = limits.streamIdleTimeoutMs > 0 ? now + latency + limits.streamIdleTimeoutMs : Number.POSITIVE_INFINITY;
      }
    } else {
      end = attempt.kind;
      endAt = now + latency;
    }
    if (abortAt < endAt) {
      ends.push("aborted");
      now = abortAt;
      return aborted();
    }
    now = endAt;
    ends.push(end);
    if (end === "answer" || end === "failAfter") {
      if (waits > 0) notices.push(`recovered ${index + 1}`);
      hints.push(undefined);
      if (end === "answer")
        return { sentAt, ends, hints, notices, ending: "answered", passesRequestTimeout: now > REQUEST_TIMEOUT_MS };
      const failure = FAILURES[(attempt as { failure: number }).failure]!;
      return {
        sentAt,
        ends,
        hints,
        notices,
        ending: "failed",
        errorIncludes: failure.text,
        passesRequestTimeout: now > REQUEST_TIMEOUT_MS,
      };
    }
    if (end === "hang") return { sentAt, ends, hints, notices, ending: "hangs", passesRequestTimeout: false };
    firstFailureAt ??= now;
    const failure = end === "timeout" ? undefined : FAILURES[(attempt as { failure: number }).failure]!;
    const retryable = failure ? failure.retryable : true;
    const hint =
      attempt.kind === "failBefore" && end === "failBefore" && attempt.hint
        ? resolveHint(attempt.hint.value, limits, now - firstFailureAt)
        : undefined;
    hints.push(hint);
    const fail = (reason: string | undefined): RetryExpectation => {
      if (reason) notices.push(`exhausted ${waits + 1} ${reason}`);
      return {
        sentAt,
        ends,
        hints,
        notices,
        ending: "failed",
        errorIncludes: failure ? failure.text : "timed out",
        passesRequestTimeout: now > REQUEST_TIMEOUT_MS,
      };
    };
    const retry = index + 1;
    if (!retryable) return fail(waits > 0 ? "not_retryable" : undefined);
    if (retry > limits.maxRetries) return fail("max_retries");
    const exponential = Math.min(limits.maxDelayMs, limits.baseDelayMs * 2 ** (retry - 1));
    const delay =
      hint !== undefined
        ? Math.min(hint, limits.maxDelayMs)
        : Math.round(exponential / 2 + (scenario.jitter * exponential) / 2);
    if (now - firstFailureAt + delay > limits.maxRetryElapsedMs) return fail("max_elapsed");
    notices.push(`waiting ${retry} ${delay}`);
    waits += 1;
    if (abortAt < now + delay) {
      now = abortAt;
      return aborted();
    }
    now += delay;
  }
}

function resolveHint(value: HintValue, limits: ReturnType<typeof limitsOf>, elapsed: number): number {
  if (value.at === "ms") return value.ms;
  if (value.at === "cap") return Math.max(0, limits.maxDelayMs + value.delta);
  return Math.max(0, limits.maxRetryElapsedMs - elapsed + value.delta);
}

/** What a run showed, in the plain model's terms. */
interface RetryObservation {
  sentAt: number[];
  /** The `maxRetries` each attempt was sent with: 0, so the provider's own SDK never retries. */
  providerRetries: unknown[];
  notices: string[];
  ending: "answered" | "failed" | "aborted";
  errorMessage?: string;
  /** The text the caller was shown. */
  shown: string;
}

/** The model every request of a case goes to (the stream function answers, whatever it names). */
const RETRY_MODEL = {
  id: "retry-model",
  name: "retry-model",
  api: "retry-api",
  provider: "retry-provider",
  baseUrl: "",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 100_000,
  maxTokens: 1_000,
} as Parameters<StreamFn>[0];

const ANSWER_TEXT = "the answer";
const PARTIAL_TEXT = "partial";

/**
 * The provider: each call streams the next attempt of the case on the
 * virtual clock, reports its response status and Retry-After header to
 * `onResponse` as a gateway does, and ends aborted when its signal fires.
 */
function scriptedProvider(
  scenario: RetryLimitsCase,
  expected: RetryExpectation,
  clock: VirtualClock,
  sentAt: number[],
  providerRetries: unknown[],
): StreamFn {
  return (model, _context, options) => {
    const index = sentAt.length;
    sentAt.push(clock.now());
    providerRetries.push(options?.maxRetries);
    const attempt = attemptAt(scenario, index);
    const limits = limitsOf(scenario);
    const stream = createAssistantMessageEventStream();
    const partial: AssistantMessage = {
      role: "assistant",
      content: [],
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: emptyUsage(),
      stopReason: "stop",
      timestamp: 0,
    };
    const signal = options?.signal;
    let ended = false;
    const push = (event: AssistantMessageEvent) => {
      if (!ended) stream.push(event);
      if (event.type === "done" || event.type === "error") ended = true;
    };
    const onAbort = () => {
      push({ type: "error", reason: "aborted", error: { ...partial, stopReason: "aborted", errorMessage: "aborted" } });
      stream.end();
    };
    if (signal?.aborted) {
      onAbort();
      return stream;
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    const finish = () => {
      signal?.removeEventListener("abort", onAbort);
      stream.end();
    };
    clock.setTimeout(
      () => {
        if (ended) return;
        void streamAttempt(attempt, expected.hints[index], model, options, partial, push, finish);
      },
      latencyMs(attempt.latency, limits.firstEventTimeoutMs),
    );
    return stream;
  };
}

async function streamAttempt(
  attempt: RetryAttempt,
  hint: number | undefined,
  model: Parameters<StreamFn>[0],
  options: Parameters<StreamFn>[2],
  partial: AssistantMessage,
  push: (event: AssistantMessageEvent) => void,
  finish: () => void,
): Promise<void> {
  const snapshot = (): AssistantMessage => structuredClone(partial);
  const prelude = (kind: Prelude) => {
    if (kind === "none") return;
    push({ type: "start", partial: snapshot() });
    if (kind === "emptyText") {
      partial.content.push({ type: "text", text: "" });
      push({ type: "text_start", contentIndex: 0, partial: snapshot() });
      push({ type: "text_delta", contentIndex: 0, delta: "", partial: snapshot() });
    }
    if (kind === "emptyThinking") {
      partial.content.push({ type: "thinking", thinking: "" });
      push({ type: "thinking_start", contentIndex: 0, partial: snapshot() });
      push({ type: "thinking_delta", contentIndex: 0, delta: "", partial: snapshot() });
    }
  };
  switch (attempt.kind) {
    case "answer": {
      if (attempt.whole !== "done") push({ type: "start", partial: snapshot() });
      partial.content.push({ type: "text", text: ANSWER_TEXT });
      if (attempt.whole !== "done") push({ type: "text_start", contentIndex: 0, partial: snapshot() });
      if (attempt.whole === undefined)
        push({ type: "text_delta", contentIndex: 0, delta: ANSWER_TEXT, partial: snapshot() });
      if (attempt.whole !== "done")
        push({ type: "text_end", contentIndex: 0, content: ANSWER_TEXT, partial: snapshot() });
      push({ type: "done", reason: "stop", message: snapshot() });
      return finish();
    }
    case "silent":
      prelude(attempt.prelude);
      return;
    case "failAfter": {
      push({ type: "start", partial: snapshot() });
      if (attempt.visible === "text") {
        partial.content.push({ type: "text", text: PARTIAL_TEXT });
        push({ type: "text_start", contentIndex: 0, partial: snapshot() });
        push({ type: "text_delta", contentIndex: 0, delta: PARTIAL_TEXT, partial: snapshot() });
      } else if (attempt.visible === "thinking") {
        partial.content.push({ type: "thinking", thinking: PARTIAL_TEXT });
        push({ type: "thinking_start", contentIndex: 0, partial: snapshot() });
        push({ type: "thinking_delta", contentIndex: 0, delta: PARTIAL_TEXT, partial: snapshot() });
      } else {
        partial.content.push({ type: "toolCall", id: "call_1", name: "lookup", arguments: {} });
        push({ type: "toolcall_start", contentIndex: 0, partial: snapshot() });
      }
      const failure = FAILURES[attempt.failure]!;
      push({
        type: "error",
        reason: "error",
        error: { ...snapshot(), stopReason: "error", errorMessage: failure.text },
      });
      return finish();
    }
    case "failBefore": {
      const failure = FAILURES[attempt.failure]!;
      const headers: Record<string, string> = {};
      let text = failure.text;
      if (hint !== undefined && attempt.hint) {
        if (attempt.hint.via === "retry-after-ms") headers["retry-after-ms"] = String(hint);
        else if (attempt.hint.via === "retry-after") headers["retry-after"] = String(hint / 1000);
        else text = `${text} Please try again in ${hint}ms.`;
      }
      const status = failure.status ?? (Number(/^\d{3}/.exec(failure.text)?.[0]) || undefined);
      if (status !== undefined || Object.keys(headers).length > 0)
        await options?.onResponse?.({ status: status ?? 500, headers }, model);
      prelude(attempt.prelude);
      push({ type: "error", reason: "error", error: { ...snapshot(), stopReason: "error", errorMessage: text } });
      return finish();
    }
    default: {
      const unknown: never = attempt;
      throw new Error(`unknown attempt ${JSON.stringify(unknown)}`);
    }
  }
}

/** Drives `clock` until `run` settles; a run that needed the driver's abort (nothing scheduled, not settled) hung. */
async function settleOrFail(run: Promise<unknown>, clock: VirtualClock, controller: AbortController): Promise<void> {
  const report = await driveUntilSettled(run, clock, () => controller.abort());
  if (report.watchdogAborted)
    throw new Error(`retry limits: the request hung at ${report.endedAt} virtual ms with nothing scheduled`);
}

/** An observer that notes each notice as text, then fails as the case says. */
function noting(notices: string[], fails: RetryLimitsCase["observerFails"]): LlmRetryObserver {
  return (notification) => {
    notices.push(noticeText(notification));
    if (fails === "throw") throw new Error("the observer failed");
    if (fails === "reject") return Promise.reject(new Error("the observer rejected"));
  };
}

function noticeText(notification: LlmRetryNotification): string {
  switch (notification.type) {
    case "waiting":
      return `waiting ${notification.attempt} ${notification.delayMs}`;
    case "recovered":
      return `recovered ${notification.attempt}`;
    case "exhausted":
      return `exhausted ${notification.attempts} ${notification.reason}`;
    case "cancelled":
      return `cancelled ${notification.attempt}`;
  }
}

async function runOnLayer(scenario: RetryLimitsCase, expected: RetryExpectation): Promise<RetryObservation> {
  // Driven from timer to timer, with the event loop run between two (a self-advancing clock fires a
  // provider's event and the watchdog due after it in one jump).
  const clock = createVirtualClock();
  const sentAt: number[] = [];
  const providerRetries: unknown[] = [];
  const notices: string[] = [];
  const provider = scriptedProvider(scenario, expected, clock, sentAt, providerRetries);
  const retried = withLlmRetry(
    provider,
    scenario.policy === false ? false : { ...scenario.policy, observer: noting(notices, scenario.observerFails) },
    {
      clock,
      random: () => scenario.jitter,
      timeouts: {
        firstEventTimeoutMs: scenario.firstEventTimeoutMs,
        streamIdleTimeoutMs: scenario.streamIdleTimeoutMs,
        env: {},
      },
    },
  );
  const controller = new AbortController();
  const abortTimer =
    scenario.abortAtMs !== undefined ? clock.setTimeout(() => controller.abort(), scenario.abortAtMs) : undefined;
  const model = RETRY_MODEL;
  const context: Context = { messages: [] };
  const run = (async () => collectStream(await retried(model, context, { signal: controller.signal })))();
  await settleOrFail(run, clock, controller);
  const collected = await run;
  clock.clearTimeout(abortTimer);
  const shown = collected.events.flatMap((event) => (event.type === "text_delta" ? [event.delta] : [])).join("");
  const final = collected.final;
  return {
    sentAt,
    providerRetries,
    notices,
    ending: final.stopReason === "aborted" ? "aborted" : final.stopReason === "error" ? "failed" : "answered",
    ...(final.errorMessage !== undefined && { errorMessage: final.errorMessage }),
    shown,
  };
}

async function runAsTurn(scenario: RetryLimitsCase, expected: RetryExpectation): Promise<RetryObservation> {
  // Driven from timer to timer, with the event loop run between two (a self-advancing clock fires a
  // provider's event and the watchdog due after it in one jump).
  const clock = createVirtualClock();
  const sentAt: number[] = [];
  const providerRetries: unknown[] = [];
  const notices: string[] = [];
  const events: RuntimeEvent[] = [];
  const controller = new AbortController();
  const abortTimer =
    scenario.abortAtMs !== undefined ? clock.setTimeout(() => controller.abort(), scenario.abortAtMs) : undefined;
  const model = RETRY_MODEL;
  const run = new PiTurnRunner({ clock, random: () => scenario.jitter }).runTurn({
    sessionId: "session-retry",
    turnId: "turn-retry",
    systemPrompt: "",
    userMessage: { text: "go" },
    eventWriter: { push: (event) => void events.push(event) },
    signal: controller.signal,
    llm: {
      model,
      streamFn: scriptedProvider(scenario, expected, clock, sentAt, providerRetries),
      ...(scenario.firstEventTimeoutMs !== undefined && { firstEventTimeoutMs: scenario.firstEventTimeoutMs }),
      ...(scenario.streamIdleTimeoutMs !== undefined && { streamIdleTimeoutMs: scenario.streamIdleTimeoutMs }),
    },
    llmRetry:
      scenario.policy === false ? false : { ...scenario.policy, observer: noting(notices, scenario.observerFails) },
    disableBuiltinToolFallback: true,
  });
  await settleOrFail(run, clock, controller);
  const outcome: TurnOutcome = await run;
  clock.clearTimeout(abortTimer);
  const shown = events
    .flatMap((event) =>
      event.type === "stream.resp" && event.payload.chunk.kind === "text" ? [event.payload.chunk.delta] : [],
    )
    .join("");
  const first = sentAt[0] ?? 0;
  return {
    sentAt: sentAt.map((at) => at - first),
    providerRetries,
    notices,
    ending: outcome.kind === "completed" ? "answered" : outcome.kind === "aborted" ? "aborted" : "failed",
    ...(outcome.kind === "failed" && { errorMessage: outcome.message }),
    shown,
  };
}

/** Runs the case on its path and compares it with {@link expectedRetry}; throws naming the first difference. */
export async function checkRetryLimits(scenario: RetryLimitsCase): Promise<void> {
  const expected = expectedRetry(scenario);
  // A turn's request timeout (20 min) is another layer's rule; its cases are the layer's alone.
  const path = scenario.path === "turn" && expected.passesRequestTimeout ? "layer" : scenario.path;
  const seen = path === "layer" ? await runOnLayer(scenario, expected) : await runAsTurn(scenario, expected);
  const fail = (what: string, got: unknown, want: unknown): never => {
    throw new Error(
      `retry limits (${path}): ${what}: got ${JSON.stringify(got)}, the rules say ${JSON.stringify(want)}\n` +
        `plain model: ${JSON.stringify(expected)}`,
    );
  };
  if (seen.providerRetries.some((retries) => retries !== 0))
    fail("maxRetries each attempt was sent with", seen.providerRetries, "0 for every attempt");
  if (JSON.stringify(seen.sentAt) !== JSON.stringify(expected.sentAt))
    fail("attempts sent at (virtual ms)", seen.sentAt, expected.sentAt);
  if (JSON.stringify(seen.notices) !== JSON.stringify(expected.notices))
    fail("observer notices", seen.notices, expected.notices);
  if (seen.ending !== expected.ending) fail("ending", seen.ending, expected.ending);
  if (expected.errorIncludes !== undefined && !seen.errorMessage?.includes(expected.errorIncludes))
    fail("error message", seen.errorMessage, `text including ${expected.errorIncludes}`);
  const last = expected.ends.at(-1);
  const lastAttempt = attemptAt(scenario, expected.ends.length - 1);
  // The layer passes on the deltas it got; a turn's host is shown the answer's text however it came.
  const wholeOnLayer = path === "layer" && lastAttempt.kind === "answer" && lastAttempt.whole !== undefined;
  const shown =
    last === "answer"
      ? wholeOnLayer
        ? ""
        : ANSWER_TEXT
      : last === "failAfter" && seen.shown !== ""
        ? PARTIAL_TEXT
        : "";
  if (last === "failAfter" ? !["", PARTIAL_TEXT].includes(seen.shown) : seen.shown !== shown)
    fail("text shown", seen.shown, shown);
}
