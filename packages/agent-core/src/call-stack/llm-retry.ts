import { systemClock, type Clock, type RandomSource } from "../clock.js";
import type { LlmRetryNotification, LlmRetryObserver, LlmRetryOptions } from "./llm-config.js";
import { resolveLlmRetryPolicy } from "./llm-retry-policy.js";
import type { OptionFill } from "./option-fill.js";
import { RetriedRequest, type RetryLayer } from "./retried-request.js";
import { copyStreamOptions, invokeStreamFn, type StreamFn } from "./stream-fn.js";

export { computeRetryDelayMs, resolveLlmRetryPolicy, type LlmRetryPolicy } from "./llm-retry-policy.js";
export { isVisibleOutputEvent } from "./retry-attempt.js";

/** What the retry layer needs besides the options: time, randomness, a name. */
export interface LlmRetryDependencies {
  /** Where backoff waits and the elapsed budget are measured. Default: the system clock. */
  clock?: Clock;
  /** Jitter source in [0, 1). Default: `Math.random`. */
  random?: RandomSource;
  /** Names the request family in notifications (`"main"`, `"auxiliary"`). Default `"main"`. */
  label?: string;
}

/**
 * Wraps `streamFn` with the transport retry, built on `p-retry`.
 *
 * - Every attempt is sent with `maxRetries: 0`, so the provider SDK never
 *   retries on its own (one owner of the budget); also with `options` `false`.
 * - Events of an attempt are buffered until {@link isVisibleOutputEvent} (or
 *   the successful end), then replayed in order and passed straight through.
 *   A failure before that point is retried when {@link classifyError} calls it
 *   retryable; a failure after it is final. The caller never sees text twice.
 * - Each attempt is sent with an `onResponse` that calls the caller's own
 *   observer first and then remembers the attempt's last response (status and
 *   headers). When the attempt fails, that response takes part in the
 *   classification: its status where the error has none, and its
 *   `retry-after-ms` / `retry-after` (seconds or an HTTP date) as the wait.
 *   Stream functions and gateways that report error responses this way get
 *   their Retry-After honoured; pi-ai 0.73.1's built-in providers report only
 *   2xx responses.
 * - Waits follow {@link computeRetryDelayMs}; a wait that would end more than
 *   `maxRetryElapsedMs` after the first failure is not started: the request
 *   fails with the attempt's error and an `exhausted` notification whose
 *   `reason` is `max_elapsed`.
 * - The caller's abort ends the request at once, also during a wait, with an
 *   `aborted` message. An attempt that is given up is aborted through its own
 *   signal, so its connection is closed.
 * - Observers get {@link LlmRetryNotification}s; their errors are swallowed.
 *
 * A final failure is a terminal `error` event whose message carries the
 * classification (see `attachClassifiedError`). Never throws. `options`
 * `false` means a single attempt. Create one wrapper per request family
 * (main, auxiliary): each has its own `label`.
 */
export function withLlmRetry(
  streamFn: StreamFn,
  options: LlmRetryOptions | false | undefined,
  dependencies: LlmRetryDependencies = {},
): StreamFn {
  return withLlmRetryFilling(streamFn, options, dependencies, undefined);
}

/**
 * {@link withLlmRetry}, with `fillOptions` (when given) applied to the copy
 * of the options each attempt is sent with: for a caller whose layers below
 * would otherwise copy the options once more to fill their own (the
 * runner's option layers, see `optionFill`).
 */
export function withLlmRetryFilling(
  streamFn: StreamFn,
  options: LlmRetryOptions | false | undefined,
  dependencies: LlmRetryDependencies,
  fillOptions: OptionFill | undefined,
): StreamFn {
  if (options === false) {
    return (model, context, callOptions) => {
      const attemptOptions = copyStreamOptions(callOptions);
      attemptOptions.maxRetries = 0;
      fillOptions?.(attemptOptions, model);
      return invokeStreamFn(streamFn, model, context, attemptOptions);
    };
  }
  const layer: RetryLayer = {
    streamFn,
    policy: resolveLlmRetryPolicy(options),
    clock: dependencies.clock ?? systemClock,
    random: dependencies.random ?? Math.random,
    label: dependencies.label ?? "main",
    notify: (notification: LlmRetryNotification) => notifySafely(options?.observer, notification),
    fillOptions,
  };
  // One object per request (its stream, budget and outcome) and one per attempt, instead of closures and promises.
  return (model, context, callOptions) => {
    const request = new RetriedRequest(layer, model, context, callOptions);
    request.start();
    return request.out;
  };
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
