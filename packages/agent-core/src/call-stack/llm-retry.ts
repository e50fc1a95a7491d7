import type { AssistantMessageEvent, Context } from "@mariozechner/pi-ai";
import { systemClock, type Clock, type RandomSource } from "../clock.js";
import type { LlmRetryNotification, LlmRetryObserver, LlmRetryOptions } from "./llm-config.js";
import { resolveLlmRetryPolicy } from "./llm-retry-policy.js";
import { RetriedRequest, type RetryLayer } from "./retried-request.js";
import {
  resolveStreamTimeouts,
  TimedRequest,
  WatchedAttempt,
  type StreamTimeoutOptions,
  type Watchdogs,
} from "./stream-timeouts.js";
import { invokeStreamFn, type AnyModel, type StreamFn } from "./stream-fn.js";

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
      return TimedRequest.send(
        new WatchedAttempt(watchdogs, model, callOptions?.signal, observe),
        streamFn,
        context,
        sent,
      );
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
  return (model, context, callOptions) => RetriedRequest.send(layer, model, context, callOptions);
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
