import type { AssistantMessage, AssistantMessageEvent, Context } from "@mariozechner/pi-ai";
import { assertFunctionArgument, assertObjectArgument } from "@turnkit/agent-loop/internal";
import { sleep, systemClock, type Clock, type RandomSource } from "../clock.js";
import { attachClassifiedError, classifyError, getAttachedClassifiedError } from "./classify-error.js";
import type { LlmRetryExhaustedReason, LlmRetryNotification, LlmRetryObserver, LlmRetryOptions } from "./llm-config.js";
import { computeRetryDelayMs, resolveLlmRetryPolicy, type LlmRetryPolicy } from "./llm-retry-policy.js";
import { DONE, PullStream } from "./pull-stream.js";
import { AttemptFailure, isVisibleOutputEvent, type AttemptEventObserver } from "./retry-attempt.js";
import { STREAM_ENDED_WITHOUT_FINAL_EVENT } from "./stream-errors.js";
import {
  createFailureMessage,
  invokeStreamFn,
  type AnyModel,
  type StreamFn,
  type StreamFnOptions,
} from "./stream-fn.js";
import {
  resolveWatchdogs,
  TimedRequest,
  WatchedAttempt,
  type StreamTimeoutOptions,
  type Watchdogs,
} from "./stream-timeouts.js";
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
 * classification (see `attachClassifiedError`). The returned function never
 * throws; wrapping throws a `TypeError` naming the argument when `streamFn`
 * is no function, or `options` (unless `false` or `undefined`) or
 * `dependencies` no object. `options` `false` means a single attempt, its events passed on as they come. Create
 * one wrapper per request family (main, auxiliary): each has its own `label`.
 */
export function withLlmRetry(
  streamFn: StreamFn,
  options: LlmRetryOptions | false | undefined,
  dependencies: LlmRetryDependencies = {},
): StreamFn {
  assertFunctionArgument(streamFn, "withLlmRetry", "streamFn");
  if (options !== undefined && options !== false) assertObjectArgument(options, "withLlmRetry", "options");
  assertObjectArgument(dependencies, "withLlmRetry", "dependencies");
  const { onAttempt } = dependencies;
  const clock = dependencies.clock ?? systemClock;
  const watchdogs = resolveWatchdogs(dependencies.timeouts, clock);
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
  const observer = options?.observer;
  const layer: RetryLayer = {
    streamFn,
    policy: resolveLlmRetryPolicy(options),
    clock,
    random: dependencies.random ?? Math.random,
    label: dependencies.label ?? "main",
    notify: (notification) => notifySafely(observer, notification),
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

/** What every request of one retry layer shares; `notify` and `onAttempt` are called as its methods. */
export interface RetryLayer {
  readonly streamFn: StreamFn;
  readonly policy: LlmRetryPolicy;
  readonly clock: Clock;
  readonly random: RandomSource;
  /** Names the request family in notices. */
  readonly label: string;
  /** Told every notice; must not throw. */
  notify(notification: LlmRetryNotification): void;
  /** Called as each attempt is sent; the observer it returns sees every event of that attempt. */
  onAttempt?(model: AnyModel, context: Context): AttemptEventObserver | undefined;
  readonly watchdogs: Watchdogs;
}

/**
 * One request through the retry layer, as the caller reads it. It sends
 * attempts one after the other ({@link sendWithRetries}) and reads each
 * itself, holding its events back, until one reaches its commit point; the
 * caller then reads that attempt's held-back events, then the attempt's own
 * reads (each `next()` is the attempt's, so the request adds nothing per
 * event). Or the request fails for good, or the caller aborts: the caller
 * reads its final failure.
 */
export class RetriedRequest extends PullStream {
  /** The committed attempt's events read before its commit point, until the caller read them. */
  private held: AssistantMessageEvent[] = [];
  private heldAt = 0;
  /** The attempt being read: by this request before its commit point, by the caller after it. */
  private attempt: WatchedAttempt | undefined;
  private committed = false;
  /** The request's own terminal event (a failure it decided), until read. */
  private final: AssistantMessageEvent | undefined;
  /** No more events for the caller: the final one was read, or the caller ended the stream. */
  private closed = false;
  /** Resolves once the caller can read: an attempt committed, the request failed, or the caller left. */
  private readonly decided: Promise<void>;
  private resolveDecided!: () => void;

  /** Sends one request through `layer` (retries on; `withLlmRetry` sends each this way): its first attempt goes out now. */
  static send(
    layer: RetryLayer,
    model: AnyModel,
    context: Context,
    callOptions: StreamFnOptions | undefined,
  ): RetriedRequest {
    const request = new RetriedRequest();
    void request.sendWithRetries(layer, model, context, callOptions);
    return request;
  }

  private constructor() {
    super();
    this.decided = new Promise((resolve) => {
      this.resolveDecided = resolve;
    });
  }

  protected pull(): Promise<IteratorResult<AssistantMessageEvent>> {
    if (this.closed) return Promise.resolve(DONE);
    const { held } = this;
    if (this.heldAt < held.length) {
      const value = held[this.heldAt]!;
      held[this.heldAt++] = undefined as never;
      return Promise.resolve({ value, done: false });
    }
    if (this.committed) return this.attempt!.next();
    const final = this.final;
    if (final) {
      this.closed = true;
      return Promise.resolve({ value: final, done: false });
    }
    return this.decided.then(() => this.pull());
  }

  /** The caller stops early (a `for await` that breaks): the attempt being read is let go, and no other is sent. */
  return(): Promise<IteratorResult<AssistantMessageEvent>> {
    this.closed = true;
    this.resolveDecided();
    this.attempt?.stop();
    return Promise.resolve(DONE);
  }

  /** Ends the stream for its reader (pi-ai's `end()`): a pending read returns, nothing more is read. */
  override end(): void {
    void this.return();
  }

  /**
   * Sends attempts until one reaches its commit point (the caller then reads
   * it), or the request fails for good, or the caller aborts or stops
   * reading. An attempt that fails before its commit point is aborted
   * through its own signal, so its connection is closed. Never rejects.
   */
  private async sendWithRetries(
    layer: RetryLayer,
    model: AnyModel,
    context: Context,
    callOptions: StreamFnOptions | undefined,
  ): Promise<void> {
    const { policy, clock, random, label } = layer;
    const caller = callOptions?.signal;
    let waits = 0;
    let firstFailureAt: number | undefined;
    let failure: AttemptFailure | undefined;
    let stoppedBy: LlmRetryExhaustedReason | undefined;
    try {
      for (let attempt = 1; ; attempt++) {
        if (caller?.aborted) break;
        const sent = sendAttempt(layer, model, context, callOptions);
        this.attempt = sent;
        // Read the attempt, holding its events back, up to its commit point or its failure.
        for (;;) {
          const { value: event, done } = await sent.next();
          if (done) {
            const ended = createFailureMessage(model, "error", STREAM_ENDED_WITHOUT_FINAL_EVENT);
            failure = new AttemptFailure(ended, sent.lastResponse);
            break;
          }
          if (event.type === "error") {
            sent.abort();
            failure = new AttemptFailure(event.error, sent.lastResponse);
            break;
          }
          this.held.push(event);
          if (event.type === "done" || isVisibleOutputEvent(event)) {
            if (attempt > 1) layer.notify({ type: "recovered", label, attempt });
            return this.commit(sent, event);
          }
        }
        this.held = [];
        if (this.closed) return;
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
        layer.notify({ type: "waiting", label, attempt, delayMs, error: classified });
        await sleep(delayMs, clock, caller);
      }
    } catch {
      // Only the wait rejects, when the caller aborts: handled below.
    }
    if (caller?.aborted) {
      if (waits > 0) layer.notify({ type: "cancelled", label, attempt: waits + 1 });
      const aborted =
        failure?.failure.stopReason === "aborted"
          ? failure.failure
          : createFailureMessage(model, "aborted", "Request was aborted");
      return this.fail(withClassification(aborted));
    }
    if (!failure) return;
    const { classified } = failure;
    if (waits > 0 || classified.retryable) {
      const reason = stoppedBy ?? (classified.retryable ? "max_retries" : "not_retryable");
      layer.notify({ type: "exhausted", label, attempts: waits + 1, reason, error: classified });
    }
    this.fail(attachClassifiedError(failure.failure, classified));
  }

  /** `attempt` reached its commit point at `last`: the caller reads the held events, then the attempt's own. */
  private commit(attempt: WatchedAttempt, last: AssistantMessageEvent): void {
    this.committed = true;
    attempt.committed = true;
    attempt.settles = this;
    if (last.type === "done") this.settle(last.message);
    this.resolveDecided();
  }

  /** The request failed for good with `message`. */
  private fail(message: AssistantMessage): void {
    this.final = { type: "error", reason: message.stopReason === "aborted" ? "aborted" : "error", error: message };
    this.settle(message);
    this.resolveDecided();
  }
}

/**
 * Sends one attempt with `maxRetries: 0` (the retry layer owns the budget)
 * and an `onResponse` that calls the caller's own observer first and then
 * remembers the attempt's last response, which classifies its failure.
 */
function sendAttempt(
  layer: RetryLayer,
  model: AnyModel,
  context: Context,
  callOptions: StreamFnOptions | undefined,
): WatchedAttempt {
  const attempt = new WatchedAttempt(layer.watchdogs, model, callOptions?.signal, layer.onAttempt?.(model, context));
  const callerObserver = callOptions?.onResponse;
  return attempt.start(layer.streamFn, context, {
    ...callOptions,
    maxRetries: 0,
    onResponse: (response, responseModel) => {
      try {
        return callerObserver?.(response, responseModel);
      } finally {
        attempt.lastResponse = { status: response.status, headers: { ...response.headers } };
      }
    },
  });
}

function withClassification(message: AssistantMessage): AssistantMessage {
  return getAttachedClassifiedError(message) ? message : attachClassifiedError(message, classifyError(message));
}
