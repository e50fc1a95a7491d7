import type { AssistantMessage, Context } from "@mariozechner/pi-ai";
import pRetry from "p-retry";
import { attachClassifiedError, classifyError, getAttachedClassifiedError } from "./classify-error.js";
import { sleep, type Clock, type RandomSource } from "../clock.js";
import type { LlmRetryExhaustedReason } from "./llm-config.js";
import { computeRetryDelayMs, type LlmRetryPolicy } from "./llm-retry-policy.js";
import { RelayStream } from "./relay-stream.js";
import {
  AttemptFailure,
  RetryAttempt,
  type AttemptLayer,
  type AttemptOutcome,
  type AttemptRequest,
} from "./retry-attempt.js";
import {
  createFailureMessage,
  errorText,
  pushTerminalError,
  type AnyModel,
  type StreamFnOptions,
} from "./stream-fn.js";

/** What every request of one retry layer shares: what its attempts share, the policy and time. */
export interface RetryLayer extends AttemptLayer {
  readonly policy: LlmRetryPolicy;
  readonly clock: Clock;
  readonly random: RandomSource;
}

/**
 * One request through the transport retry (see `withLlmRetry`): its
 * stream, its budget and its outcome. It is the outcome of its first
 * attempt, so a request whose first attempt succeeds costs this object and
 * the attempt, no promise: p-retry (an options copy, validation and an
 * async frame) starts only once the first attempt failed and the caller has
 * not aborted, with that failure replayed as its attempt 1, and decides,
 * waits and notifies from there. The first attempt's outcome is handled in
 * the microtasks an `async` function awaiting it would take (one to resume,
 * one to settle), so failures and aborts reach the layer above exactly when
 * they always did.
 */
export class RetriedRequest implements AttemptRequest, AttemptOutcome {
  readonly out = new RelayStream();
  /** What each attempt sends, until the request ended ({@link ended}). */
  context: Context | undefined;
  /** The caller's signal (`callOptions.signal`). */
  readonly caller: AbortSignal | undefined;
  private firstFailureAt: number | undefined;
  private waits = 0;
  private stoppedBy: LlmRetryExhaustedReason | undefined;

  /** A request of `layer`, with the stream function's arguments; nothing is sent before {@link start}. */
  constructor(
    readonly layer: RetryLayer,
    readonly model: AnyModel,
    context: Context,
    readonly callOptions: StreamFnOptions | undefined,
  ) {
    this.context = context;
    this.caller = callOptions?.signal;
  }

  /**
   * Forgets the request's context (a whole transcript) once its stream has
   * ended. The request object may stay reachable a while longer (from
   * objects of the provider or of the signal, which live across requests),
   * and a context kept with it was carried through young-generation
   * collections into the old generation: a 1,200-step turn then spent
   * twice as long in garbage collection.
   */
  ended(): void {
    this.context = undefined;
  }

  /** Sends the first attempt, unless the caller has aborted already. */
  start(): void {
    const { caller } = this;
    if (caller?.aborted) {
      const reason = caller.reason;
      queueMicrotask(() => this.finishFailed(reason));
      return;
    }
    new RetryAttempt(this, 1, this).start();
  }

  /** The first attempt reached its commit point: once resumed, only a caller's abort meanwhile ends the request. */
  committed(): void {
    queueMicrotask(() => {
      const { caller } = this;
      if (!caller?.aborted) return;
      const reason = caller.reason;
      queueMicrotask(() => this.finishFailed(reason));
    });
  }

  /** The first attempt failed before its commit point: once resumed, the retry decides (unless the caller aborted). */
  failed(failure: AttemptFailure): void {
    queueMicrotask(() => {
      if (this.caller?.aborted) {
        queueMicrotask(() => this.finishFailed(failure));
        return;
      }
      this.retryAfter(failure).then(undefined, (error: unknown) => queueMicrotask(() => this.finishFailed(error)));
    });
  }

  /** Attempts 2 and later, as p-retry runs them: a promise of the attempt's commit, rejected with its {@link AttemptFailure}. */
  private runAttempt(attempt: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      new RetryAttempt(this, attempt, { committed: resolve, failed: reject }).start();
    });
  }

  private retryAfter(firstFailure: AttemptFailure): Promise<void> {
    const { policy, clock, random, label, notify } = this.layer;
    const { caller } = this;
    const callerSignal = caller;
    return pRetry((attempt) => (attempt === 1 ? Promise.reject(firstFailure) : this.runAttempt(attempt)), {
      retries: policy.maxRetries,
      // p-retry's own timer is unused (real time, not injectable): it waits 0 ms,
      // and the policy's wait happens on the injected clock inside shouldRetry.
      minTimeout: 0,
      maxTimeout: 0,
      factor: 1,
      signal: callerSignal,
      onFailedAttempt: () => {
        this.firstFailureAt ??= clock.now();
      },
      shouldRetry: async ({ error, attemptNumber }) => {
        if (!(error instanceof AttemptFailure) || caller?.aborted) return false;
        const classified = error.classified;
        if (!classified.retryable || classified.aborted) return false;
        const delayMs = computeRetryDelayMs({
          retry: attemptNumber,
          policy,
          random,
          retryAfterMs: classified.retryAfterMs,
        });
        const elapsed = clock.now() - (this.firstFailureAt ?? clock.now());
        if (elapsed + delayMs > policy.maxRetryElapsedMs) {
          this.stoppedBy = "max_elapsed";
          return false;
        }
        this.waits += 1;
        notify({ type: "waiting", label, attempt: attemptNumber, delayMs, error: classified });
        await sleep(delayMs, clock, callerSignal);
        return true;
      },
    });
  }

  /** The request failed for good (or was aborted): its one terminal event, with the notice it calls for. */
  private finishFailed(error: unknown): void {
    this.ended();
    const { out, model, caller, waits } = this;
    const { notify, label } = this.layer;
    const attemptFailure = error instanceof AttemptFailure ? error : undefined;
    if (caller?.aborted) {
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
        const reason = this.stoppedBy ?? (classified.retryable ? "max_retries" : "not_retryable");
        notify({ type: "exhausted", label, attempts: waits + 1, reason, error: classified });
      }
      pushTerminalError(out, attachClassifiedError(failure, classified));
      return;
    }
    pushTerminalError(out, withClassification(createFailureMessage(model, "error", errorText(error))));
  }
}

function withClassification(message: AssistantMessage): AssistantMessage {
  return getAttachedClassifiedError(message) ? message : attachClassifiedError(message, classifyError(message));
}
