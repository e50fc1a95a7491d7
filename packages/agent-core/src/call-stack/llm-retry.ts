import type { AssistantMessage } from "@mariozechner/pi-ai";
import pRetry from "p-retry";
import { attachClassifiedError, classifyError, getAttachedClassifiedError } from "./classify-error.js";
import { sleep, systemClock, type Clock, type RandomSource } from "../clock.js";
import type { LlmRetryExhaustedReason, LlmRetryNotification, LlmRetryObserver, LlmRetryOptions } from "./llm-config.js";
import { computeRetryDelayMs, resolveLlmRetryPolicy } from "./llm-retry-policy.js";
import { AttemptSignalLinks } from "./attempt-signal.js";
import type { OptionFill } from "./option-fill.js";
import { RelayStream } from "./relay-stream.js";
import { AttemptFailure, RetryAttempt } from "./retry-attempt.js";
import {
  copyStreamOptions,
  createFailureMessage,
  errorText,
  invokeStreamFn,
  pushTerminalError,
  type StreamFn,
  type StreamFnOptions,
} from "./stream-fn.js";

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
  const policy = resolveLlmRetryPolicy(options);
  const clock = dependencies.clock ?? systemClock;
  const random = dependencies.random ?? Math.random;
  const label = dependencies.label ?? "main";
  const notify = (notification: LlmRetryNotification) => notifySafely(options?.observer, notification);
  const links = new AttemptSignalLinks();

  return (model, context, callOptions) => {
    const out = new RelayStream();
    const callerSignal = callOptions?.signal;
    let firstFailureAt: number | undefined;
    let waits = 0;
    let stoppedBy: LlmRetryExhaustedReason | undefined;

    // One object per attempt (its sink, its abort link and its last response) instead of a closure per step.
    const runAttempt = (attempt: number) =>
      new Promise<void>((resolve, reject) => {
        new RetryAttempt(out, model, callerSignal, attempt, resolve, reject, notify, label, fillOptions, links).start(streamFn, context, callOptions);
      });

    // p-retry (an options copy, validation and an async frame per request: ~2% of the runner's time with
    // thousands of turns in flight) starts only once the first attempt failed and the caller has not
    // aborted, with that failure replayed as its attempt 1: it decides, waits and notifies as before.
    const retryAfter = (firstFailure: unknown) => pRetry((attempt) => (attempt === 1 ? Promise.reject(firstFailure) : runAttempt(attempt)), {
      retries: policy.maxRetries,
      // p-retry's own timer is unused (real time, not injectable): it waits 0 ms,
      // and the policy's wait happens on the injected clock inside shouldRetry.
      minTimeout: 0,
      maxTimeout: 0,
      factor: 1,
      signal: callerSignal,
      onFailedAttempt: () => {
        firstFailureAt ??= clock.now();
      },
      shouldRetry: async ({ error, attemptNumber }) => {
        if (!(error instanceof AttemptFailure) || callerSignal?.aborted) return false;
        const classified = error.classified;
        if (!classified.retryable || classified.aborted) return false;
        const delayMs = computeRetryDelayMs({
          retry: attemptNumber,
          policy,
          random,
          retryAfterMs: classified.retryAfterMs,
        });
        const elapsed = clock.now() - (firstFailureAt ?? clock.now());
        if (elapsed + delayMs > policy.maxRetryElapsedMs) {
          stoppedBy = "max_elapsed";
          return false;
        }
        waits += 1;
        notify({ type: "waiting", label, attempt: attemptNumber, delayMs, error: classified });
        await sleep(delayMs, clock, callerSignal);
        return true;
      },
    });
    const runAttempts = async () => {
      callerSignal?.throwIfAborted();
      try {
        await runAttempt(1);
      } catch (failure) {
        // Aborted meanwhile: p-retry would give up on this failure without waiting or notifying.
        if (callerSignal?.aborted) throw failure;
        await retryAfter(failure);
        return;
      }
      callerSignal?.throwIfAborted();
    };
    runAttempts().then(
      () => {
        // Committed: the attempt's own loop passes the rest of its events through.
      },
      (error: unknown) => {
        const attemptFailure = error instanceof AttemptFailure ? error : undefined;
        if (callerSignal?.aborted) {
          if (waits > 0) notify({ type: "cancelled", label, attempt: waits + 1 });
          const aborted =
            attemptFailure?.failure.stopReason === "aborted"
              ? attemptFailure.failure
              : createFailureMessage(model, "aborted", "Request was aborted");
          pushTerminalError(out, withClassification(aborted));
          return;
        }
        if (attemptFailure) {
          const { failure, classified } = attemptFailure;
          if (waits > 0 || classified.retryable) {
            const reason = stoppedBy ?? (classified.retryable ? "max_retries" : "not_retryable");
            notify({ type: "exhausted", label, attempts: waits + 1, reason, error: classified });
          }
          pushTerminalError(out, attachClassifiedError(failure, classified));
          return;
        }
        pushTerminalError(out, withClassification(createFailureMessage(model, "error", errorText(error))));
      },
    );
    return out;
  };
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
