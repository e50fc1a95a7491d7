import {
  type AssistantMessage,
  type AssistantMessageEvent,
  type Context,
  type ProviderResponse,
} from "@mariozechner/pi-ai";
import { sleep, systemClock, type Clock, type RandomSource } from "../clock.js";
import { attachClassifiedError, classifyError, getAttachedClassifiedError } from "./classify-error.js";
import type { LlmRetryExhaustedReason, LlmRetryNotification, LlmRetryObserver, LlmRetryOptions } from "./llm-config.js";
import { computeRetryDelayMs, resolveLlmRetryPolicy, type LlmRetryPolicy } from "./llm-retry-policy.js";
import { RetriedRequest } from "./retried-request.js";
import { AttemptFailure, isVisibleOutputEvent, type AttemptEventObserver } from "./retry-attempt.js";
import { STREAM_ENDED_WITHOUT_FINAL_EVENT } from "./stream-errors.js";
import { resolveStreamTimeouts, TimedRequest, type StreamTimeoutOptions, type Watchdogs } from "./stream-timeouts.js";
import {
  createFailureMessage,
  invokeStreamFn,
  type AnyModel,
  type StreamFn,
  type StreamFnOptions,
} from "./stream-fn.js";

export { computeRetryDelayMs, resolveLlmRetryPolicy, type LlmRetryPolicy } from "./llm-retry-policy.js";
export { isVisibleOutputEvent } from "./retry-attempt.js";

/** What the retry layer needs besides the options: time, randomness, a name, the watchdogs, and who watches its attempts. */
export interface LlmRetryDependencies {
  /** Where backoff waits and the elapsed budget are measured, and the watchdogs' timers run. Default: the system clock. */
  clock?: Clock;
  /** Jitter source in [0, 1). Default: `Math.random`. */
  random?: RandomSource;
  /** Names the request family in notifications (`"main"`, `"auxiliary"`). Default `"main"`. */
  label?: string;
  /**
   * The stream watchdogs of each attempt, as `withStreamTimeouts` keeps them
   * (resolved the same way, `0` turning one off); kept by this layer while
   * it reads the attempt, instead of by a layer of their own below it.
   * Default: none.
   */
  timeouts?: Pick<StreamTimeoutOptions, "firstEventTimeoutMs" | "streamIdleTimeoutMs" | "env">;
  /**
   * Called as each attempt is sent (also the one attempt with retry off);
   * the function it returns, if any, sees every event of that attempt's
   * stream as it arrives, before the layer holds it back or passes it on.
   * For observers (timing, usage): it changes nothing and must not throw.
   */
  onAttempt?: (model: AnyModel, context: Context) => ((event: AssistantMessageEvent) => void) | undefined;
}

/**
 * Wraps `streamFn` with the transport retry.
 *
 * - Every attempt is sent with `maxRetries: 0`, so the provider SDK never
 *   retries on its own (one owner of the budget); also with `options` `false`.
 * - Events of an attempt are held back until {@link isVisibleOutputEvent} (or
 *   the successful end), then passed on in order, and later ones straight
 *   through. A failure before that point is retried when `classifyError`
 *   calls it retryable; a failure after it is final. The caller never sees
 *   text twice.
 * - Each attempt is sent with an `onResponse` that calls the caller's own
 *   observer first and then remembers the attempt's last response (status and
 *   headers). When the attempt fails, that response takes part in the
 *   classification: its status where the error has none, and its
 *   `retry-after-ms` / `retry-after` (seconds or an HTTP date) as the wait.
 *   pi-ai 0.73.1's built-in providers report only 2xx responses.
 * - Waits follow {@link computeRetryDelayMs}; a wait that would end more than
 *   `maxRetryElapsedMs` after the first failure is not started: the request
 *   fails with the attempt's error and an `exhausted` notification whose
 *   `reason` is `max_elapsed`.
 * - The caller's abort (`options.signal`) ends the request, also during a
 *   wait, with an `aborted` message. Each attempt has a signal of its own
 *   that follows the caller's; an attempt that is given up is aborted
 *   through it, so its connection is closed.
 * - With `dependencies.timeouts`, each attempt keeps the stream watchdogs
 *   (a timed-out attempt fails as `withStreamTimeouts` describes, and is
 *   retried like any retryable failure).
 * - Observers get {@link LlmRetryNotification}s; their errors are swallowed.
 *
 * A final failure is a terminal `error` event whose message carries the
 * classification (see `attachClassifiedError`). Never throws. `options`
 * `false` means a single attempt, its events passed on as they come. Create
 * one wrapper per request family (main, auxiliary): each has its own `label`.
 */
export function withLlmRetry(
  streamFn: StreamFn,
  options: LlmRetryOptions | false | undefined,
  dependencies: LlmRetryDependencies = {},
): StreamFn {
  const { onAttempt } = dependencies;
  const clock = dependencies.clock ?? systemClock;
  const { timeouts } = dependencies;
  const limits = timeouts
    ? resolveStreamTimeouts(timeouts, timeouts.env)
    : { firstEventTimeoutMs: 0, streamIdleTimeoutMs: 0 };
  const watchdogs: Watchdogs = { ...limits, clock };
  if (options === false) {
    const timed = watchdogs.firstEventTimeoutMs > 0 || watchdogs.streamIdleTimeoutMs > 0;
    return (model, context, callOptions) => {
      const observe = onAttempt?.(model, context);
      const sent = { ...callOptions, maxRetries: 0 };
      if (!observe && !timed) return invokeStreamFn(streamFn, model, context, sent);
      const watch = observe && ((event: AssistantMessageEvent) => (observe(event), event));
      return new TimedRequest(watchdogs, model, callOptions?.signal, watch).start(streamFn, context, sent);
    };
  }
  const layer: RetryLayer = {
    streamFn,
    policy: resolveLlmRetryPolicy(options),
    clock,
    random: dependencies.random ?? Math.random,
    label: dependencies.label ?? "main",
    notify: (notification) => notifySafely(options?.observer, notification),
    onAttempt,
    watchdogs,
  };
  return (model, context, callOptions) => {
    const request = new RetriedRequest();
    void sendWithRetries(layer, request, model, context, callOptions);
    return request;
  };
}

/** What every request of one retry layer shares. */
interface RetryLayer {
  readonly streamFn: StreamFn;
  readonly policy: LlmRetryPolicy;
  readonly clock: Clock;
  readonly random: RandomSource;
  /** Names the request family in notices. */
  readonly label: string;
  readonly notify: (notification: LlmRetryNotification) => void;
  readonly onAttempt: LlmRetryDependencies["onAttempt"];
  readonly watchdogs: Watchdogs;
}

/**
 * One attempt of a request: its last response (status and headers) and
 * whether it reached its commit point. Shows every event of the attempt to
 * its observer; after the commit point a failure is the request's final
 * answer, classified with that response.
 */
class Attempt {
  lastResponse: ProviderResponse | undefined;
  committed = false;
  readonly onEvent = (event: AssistantMessageEvent): AssistantMessageEvent => {
    this.observe?.(event);
    if (this.committed && event.type === "error") {
      const message = event.error;
      attachClassifiedError(message, classifyError(message, this.lastResponse));
    }
    return event;
  };

  constructor(private readonly observe: AttemptEventObserver | undefined) {}
}

/**
 * One request: attempts until one reaches its commit point (the caller then
 * reads it through `request`), or the request fails for good, or the caller
 * aborts. Never rejects.
 */
async function sendWithRetries(
  layer: RetryLayer,
  request: RetriedRequest,
  model: AnyModel,
  context: Context,
  callOptions: StreamFnOptions | undefined,
): Promise<void> {
  const { policy, clock, random, label, notify } = layer;
  const caller = callOptions?.signal;
  let waits = 0;
  let firstFailureAt: number | undefined;
  let failure: AttemptFailure | undefined;
  let stoppedBy: LlmRetryExhaustedReason | undefined;
  try {
    for (let attempt = 1; ; attempt++) {
      if (caller?.aborted) break;
      failure = await sendAttempt(layer, request, model, context, callOptions, attempt);
      // Committed (the caller reads that attempt now), or the caller stopped reading.
      if (!failure || request.isClosed) return;
      if (caller?.aborted) break;
      firstFailureAt ??= clock.now();
      const { classified } = failure;
      if (attempt > policy.maxRetries || !classified.retryable || classified.aborted) break;
      const delayMs = computeRetryDelayMs({ retry: attempt, policy, random, retryAfterMs: classified.retryAfterMs });
      if (clock.now() - firstFailureAt + delayMs > policy.maxRetryElapsedMs) {
        stoppedBy = "max_elapsed";
        break;
      }
      waits += 1;
      notify({ type: "waiting", label, attempt, delayMs, error: classified });
      await sleep(delayMs, clock, caller);
    }
  } catch {
    // Only the wait rejects, when the caller aborts: handled below.
  }
  if (caller?.aborted) {
    if (waits > 0) notify({ type: "cancelled", label, attempt: waits + 1 });
    const aborted =
      failure?.failure.stopReason === "aborted"
        ? failure.failure
        : createFailureMessage(model, "aborted", "Request was aborted");
    return request.fail(withClassification(aborted));
  }
  if (!failure) return;
  const { classified } = failure;
  if (waits > 0 || classified.retryable) {
    const reason = stoppedBy ?? (classified.retryable ? "max_retries" : "not_retryable");
    notify({ type: "exhausted", label, attempts: waits + 1, reason, error: classified });
  }
  request.fail(attachClassifiedError(failure.failure, classified));
}

/**
 * Sends attempt number `attempt` and reads it, holding its events back,
 * until its commit point (it is then handed to `request`: `undefined`) or
 * its failure before it (the attempt is aborted through its own signal, so
 * its connection is closed).
 */
async function sendAttempt(
  layer: RetryLayer,
  request: RetriedRequest,
  model: AnyModel,
  context: Context,
  callOptions: StreamFnOptions | undefined,
  attempt: number,
): Promise<AttemptFailure | undefined> {
  const state = new Attempt(layer.onAttempt?.(model, context));
  const callerObserver = callOptions?.onResponse;
  const options: StreamFnOptions = {
    ...callOptions,
    maxRetries: 0,
    onResponse: (response, responseModel) => {
      try {
        return callerObserver?.(response, responseModel);
      } finally {
        state.lastResponse = { status: response.status, headers: { ...response.headers } };
      }
    },
  };
  const sent = new TimedRequest(layer.watchdogs, model, callOptions?.signal, state.onEvent).start(
    layer.streamFn,
    context,
    options,
  );
  request.current = sent;
  const held: AssistantMessageEvent[] = [];
  for (;;) {
    const { value: event, done } = await sent.next();
    if (done)
      return new AttemptFailure(
        createFailureMessage(model, "error", STREAM_ENDED_WITHOUT_FINAL_EVENT),
        state.lastResponse,
      );
    if (event.type === "error") {
      sent.abort();
      return new AttemptFailure(event.error, state.lastResponse);
    }
    held.push(event);
    if (event.type === "done" || isVisibleOutputEvent(event)) {
      if (attempt > 1) layer.notify({ type: "recovered", label: layer.label, attempt });
      state.committed = true;
      request.commit(sent, held);
      return undefined;
    }
  }
}

function withClassification(message: AssistantMessage): AssistantMessage {
  return getAttachedClassifiedError(message) ? message : attachClassifiedError(message, classifyError(message));
}

function notifySafely(observer: LlmRetryObserver | undefined, notification: LlmRetryNotification): void {
  if (!observer) return;
  try {
    const result = observer(notification);
    if (result && typeof (result as Promise<void>).then === "function") {
      (result as Promise<void>).then(undefined, () => {});
    }
  } catch {
    // Observer failures never affect the request.
  }
}
