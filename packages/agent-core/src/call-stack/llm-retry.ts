import type { AssistantMessage, AssistantMessageEvent, Context } from "@mariozechner/pi-ai";
import { sleep, systemClock, type Clock, type RandomSource } from "../clock.js";
import { attachClassifiedError, classifyError, getAttachedClassifiedError } from "./classify-error.js";
import type { LlmRetryExhaustedReason, LlmRetryNotification, LlmRetryObserver, LlmRetryOptions } from "./llm-config.js";
import { computeRetryDelayMs, resolveLlmRetryPolicy, type LlmRetryPolicy } from "./llm-retry-policy.js";
import { pipeEvents, RelayStream } from "./relay-stream.js";
import { type AttemptEventObserver, type AttemptFailure, type AttemptLayer, RetryAttempt } from "./retry-attempt.js";
import {
  createFailureMessage,
  errorText,
  invokeStreamFn,
  isTerminalEvent,
  pushTerminalError,
  type AnyModel,
  type StreamFn,
  type StreamFnOptions,
} from "./stream-fn.js";

export { computeRetryDelayMs, resolveLlmRetryPolicy, type LlmRetryPolicy } from "./llm-retry-policy.js";
export { isVisibleOutputEvent } from "./retry-attempt.js";

/** What the retry layer needs besides the options: time, randomness, a name, and who watches its attempts. */
export interface LlmRetryDependencies {
  /** Where backoff waits and the elapsed budget are measured. Default: the system clock. */
  clock?: Clock;
  /** Jitter source in [0, 1). Default: `Math.random`. */
  random?: RandomSource;
  /** Names the request family in notifications (`"main"`, `"auxiliary"`). Default `"main"`. */
  label?: string;
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
  if (options === false) {
    return (model, context, callOptions) => {
      const observe = onAttempt?.(model, context);
      const stream = invokeStreamFn(streamFn, model, context, { ...callOptions, maxRetries: 0 });
      return observe ? observed(stream, observe, model, callOptions) : stream;
    };
  }
  const layer: RetryLayer = {
    streamFn,
    policy: resolveLlmRetryPolicy(options),
    clock: dependencies.clock ?? systemClock,
    random: dependencies.random ?? Math.random,
    label: dependencies.label ?? "main",
    notify: (notification) => notifySafely(options?.observer, notification),
    onAttempt,
  };
  return (model, context, callOptions) => {
    const out = new RelayStream();
    void sendWithRetries(layer, out, model, context, callOptions);
    return out;
  };
}

/** What every request of one retry layer shares. */
interface RetryLayer extends AttemptLayer {
  readonly policy: LlmRetryPolicy;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly onAttempt: LlmRetryDependencies["onAttempt"];
}

/**
 * One request: attempts until one reaches its commit point (it then streams
 * on into `out` by itself), or the request fails for good, or the caller
 * aborts. Ends `out` with exactly one terminal event. Never rejects.
 */
async function sendWithRetries(
  layer: RetryLayer,
  out: RelayStream,
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
      // Sent now; the attempt answers once it committed (undefined) or failed before that.
      const sent = new RetryAttempt(layer, out, model, callOptions, attempt, layer.onAttempt?.(model, context));
      failure = await sent.send(context);
      if (caller?.aborted || !failure) break;
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
    return pushTerminalError(out, withClassification(aborted));
  }
  if (!failure) return;
  const { classified } = failure;
  if (waits > 0 || classified.retryable) {
    const reason = stoppedBy ?? (classified.retryable ? "max_retries" : "not_retryable");
    notify({ type: "exhausted", label, attempts: waits + 1, reason, error: classified });
  }
  pushTerminalError(out, attachClassifiedError(failure.failure, classified));
}

/** With retry off: `stream`'s events passed on as they come, each shown to `observe` first. */
function observed(
  stream: ReturnType<typeof invokeStreamFn>,
  observe: AttemptEventObserver,
  model: AnyModel,
  callOptions: StreamFnOptions | undefined,
): RelayStream {
  const out = new RelayStream();
  pipeEvents(stream, {
    event(event) {
      observe(event);
      out.push(event);
      if (isTerminalEvent(event)) out.end();
    },
    end: () => out.end(),
    fail(error) {
      const aborted = callOptions?.signal?.aborted;
      pushTerminalError(out, createFailureMessage(model, aborted ? "aborted" : "error", errorText(error)));
    },
  });
  return out;
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
