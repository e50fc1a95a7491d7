// Why this file is long: the two watchdogs and the attempt they guard are one state machine (its reads, its decided failures, its release of the provider), kept in one place so each transition is read beside the others.
import type { AssistantMessage, AssistantMessageEvent, Context, ProviderResponse } from "@mariozechner/pi-ai";
import { EventStream } from "@mariozechner/pi-ai";
import { RequestAbortController } from "../aborts.js";
import { assertFunctionArgument, assertObjectArgument } from "@turnkit/agent-loop/internal";
import { attachClassifiedError, classifyError } from "./classify-error.js";
import { systemClock, type Clock } from "../clock.js";
import { DONE, PullStream } from "./pull-stream.js";
import { resolveWatchdogs, type StreamTimeoutOptions, type Watchdogs } from "./stream-timeout-options.js";
import { pipeEvents, RelayStream, releaseIterator } from "./relay-stream.js";
import type { AttemptEventObserver } from "./retry-attempt.js";
import { LlmTimeoutError, STREAM_ENDED_WITHOUT_FINAL_EVENT, type LlmTimeoutKind } from "./stream-errors.js";
import { responseProblem, streamEventProblem } from "../messages/content-checks.js";
import { countedUsage } from "./provider-usage.js";
import {
  createFailureMessage,
  errorText,
  invokeStreamFn,
  malformedResponseFailure,
  snapshotAsFailure,
  type AnyModel,
  type StreamFn,
  type StreamFnOptions,
} from "./stream-fn.js";

export { resolveStreamTimeouts, resolveWatchdogs } from "./stream-timeout-options.js";
export type { StreamTimeoutOptions, StreamTimeouts, Watchdogs } from "./stream-timeout-options.js";

/**
 * Wraps `streamFn` with the two stream watchdogs, per call (so, inside
 * the retry layer, per attempt): a first-event timer started with the call,
 * and an idle timer re-armed on every event.
 *
 * When one fires, the wrapped request is aborted (through its own signal,
 * linked to the caller's, so the connection is closed; the caller's own
 * signal is never aborted),
 * the provider's stream iterator is released
 * (`return()` is called on it, without waiting for an answer: a provider
 * that ignores its signal is let go, not waited for), and the returned stream
 * ends at once with an `error` event: stopReason `"error"`, an
 * `errorMessage` from {@link LlmTimeoutError} (naming the option to raise and
 * its value), the partial content seen so far, and the attached
 * classification (`timeout`, retryable).
 *
 * A caller's abort (`options.signal`) ends the returned stream at once with
 * stopReason `"aborted"`, releases the provider's iterator the same way, and
 * is never reported as a timeout. All timers and listeners are removed when
 * the stream ends. The stream function never throws; wrapping throws a
 * `TypeError` naming a `streamFn` that is no function, `options` no object.
 */
export function withStreamTimeouts(streamFn: StreamFn, options: StreamTimeoutOptions = {}): StreamFn {
  assertFunctionArgument(streamFn, "withStreamTimeouts", "streamFn");
  assertObjectArgument(options, "withStreamTimeouts", "options");
  const watchdogs = resolveWatchdogs(options, options.clock ?? systemClock);
  if (watchdogs.firstEventTimeoutMs === 0 && watchdogs.streamIdleTimeoutMs === 0) {
    return (model, context, callOptions) => invokeStreamFn(streamFn, model, context, callOptions);
  }
  return (model, context, callOptions) =>
    TimedRequest.send(new WatchedAttempt(watchdogs, model, callOptions?.signal), streamFn, context, { ...callOptions });
}

/** A stream the reader can end from outside: a pending read then returns (pi-ai's `EventStream.end()`). */
type EndableStream = AsyncIterable<AssistantMessageEvent> & { end(): void };

/**
 * The stream of one request read through a single {@link WatchedAttempt}
 * (`withStreamTimeouts`, and the retry layer with the retry off): each read
 * is the attempt's.
 */
export class TimedRequest extends PullStream {
  /** Sends `attempt` (see {@link WatchedAttempt.start}) and returns its stream. */
  static send(attempt: WatchedAttempt, streamFn: StreamFn, context: Context, options: StreamFnOptions): TimedRequest {
    const request = new TimedRequest(attempt);
    attempt.start(streamFn, context, options);
    return request;
  }

  private constructor(private readonly attempt: WatchedAttempt) {
    super();
    attempt.settles = this;
  }

  protected pull(): Promise<IteratorResult<AssistantMessageEvent>> {
    return this.attempt.next();
  }

  /** The reader stops (a `for await` that breaks or throws): the attempt is let go (see {@link WatchedAttempt.stop}). */
  return(): Promise<IteratorResult<AssistantMessageEvent>> {
    this.attempt.stop();
    return Promise.resolve(DONE);
  }

  /** Ends the stream for its reader (pi-ai's `end()`): a pending read returns, and nothing more is read. */
  override end(): void {
    this.attempt.stop();
  }
}

/**
 * One attempt of a request, read by pull: each {@link next} asks the
 * provider's stream for its next event and answers with it, so the attempt
 * adds no queue and no second reader per event. On the way it keeps the
 * watchdogs (see {@link withStreamTimeouts}) and the attempt's own signal
 * (following the caller's), and shows each event to `observe`. Once
 * {@link committed} (the retry layer made it the request's answer), a
 * failure it answers is classified with its last response. It always ends
 * with exactly one terminal event: the provider's, or the failure it decided
 * (a timeout, the caller's abort, a stream that ended or threw without one);
 * at that event it settles the stream that reads it ({@link settles}).
 */
export class WatchedAttempt {
  /** The attempt's own signal: aborted on a timeout, and with the caller's reason when the caller aborts. */
  private readonly signal: RequestAbortController;
  /** The attempt's latest response (status and headers), when the caller records it. */
  lastResponse: ProviderResponse | undefined;
  /** The attempt is the request's answer: a failure it answers from now on is the request's, classified. */
  committed = false;
  /** The stream whose final message is this attempt's, settled at the terminal event. */
  settles: PullStream | undefined;
  private finished = false;
  /** The terminal event this attempt decided (timeout, abort), answered by the next read instead of the provider's. */
  private decided: Extract<AssistantMessageEvent, { type: "error" }> | undefined;
  /** The attempt's one watchdog timer (see {@link noteEvent}). */
  private timer: unknown;
  /** When the first-event timer is due; the timer then checks the idle window instead once an event came. */
  private firstEventDueAt = 0;
  private lastPartial: AssistantMessage | undefined;
  /** Set once the first event arrived: from then on the timer watches the idle window. */
  private idleArmed = false;
  private lastEventAt = 0;
  private stream: EndableStream | undefined;
  /** Set when a stream that cannot be ended from outside failed while relayed (see {@link endable}). */
  sourceFailure: { error: unknown } | undefined;
  /** Stops relaying such a stream (see {@link endable}) and releases its iterator. */
  stopRelay: (() => void) | undefined;
  private source: AsyncIterator<AssistantMessageEvent> | undefined;
  private readonly onResult = (result: IteratorResult<AssistantMessageEvent>) => this.answer(result);
  private readonly onFailure = (error: unknown) => this.answerFailure(error);

  constructor(
    private readonly watchdogs: Watchdogs,
    private readonly model: AnyModel,
    private readonly callerSignal: AbortSignal | undefined,
    private readonly observe?: AttemptEventObserver,
  ) {
    this.signal = new RequestAbortController(callerSignal, () => this.onCallerAbort());
  }

  /**
   * Sends the attempt through `streamFn`. `options` is this attempt's own
   * copy of the caller's options: its `signal` becomes the attempt's own.
   */
  start(streamFn: StreamFn, context: Context, options: StreamFnOptions): this {
    const { callerSignal } = this;
    if (callerSignal?.aborted) {
      this.decide(this.endWith("aborted", "Request was aborted"));
      return this;
    }
    const { firstEventTimeoutMs, clock } = this.watchdogs;
    if (firstEventTimeoutMs > 0) {
      this.firstEventDueAt = clock.now() + firstEventTimeoutMs;
      this.timer = clock.setTimeout(() => this.onTimer(), firstEventTimeoutMs);
    }
    options.signal = this.signal.signal;
    const stream = endable(invokeStreamFn(streamFn, this.model, context, options), this);
    this.stream = stream;
    this.source = stream[Symbol.asyncIterator]();
    return this;
  }

  /** The attempt's next event: a decided terminal first, else the provider's next one. Never rejects. */
  next(): Promise<IteratorResult<AssistantMessageEvent>> {
    if (this.decided) return Promise.resolve(this.takeDecided());
    if (this.finished || !this.source) return Promise.resolve(DONE);
    return this.source.next().then(this.onResult, this.onFailure);
  }

  /** The reader stops: before the end, the attempt is aborted through its own signal; the provider's stream is let go (a pending read returns) and nothing more is read. */
  stop(): void {
    if (!this.finished) {
      this.finish();
      this.signal.abort();
    }
    this.decided = undefined;
    this.letGo();
  }

  /** Aborts the attempt through its own signal (the retry layer gives up on it); the caller's is never aborted. */
  abort(reason?: unknown): void {
    this.signal.abort(reason);
  }

  /** The caller aborted (the attempt's own signal has followed it already). */
  private onCallerAbort(): void {
    if (this.finished) return;
    this.decide(this.endWith("aborted", "Request was aborted"));
  }

  private answer(result: IteratorResult<AssistantMessageEvent>): IteratorResult<AssistantMessageEvent> {
    if (this.decided) return this.takeDecided();
    if (this.finished) return DONE;
    if (result.done) {
      if (this.sourceFailure) return this.answerFailure(this.sourceFailure.error);
      this.decide(this.endWith("error", STREAM_ENDED_WITHOUT_FINAL_EVENT));
      return this.takeDecided();
    }
    const event = result.value;
    // A malformed event never reaches the loop or the host's events: the response fails, naming the field.
    const eventProblem = streamEventProblem(event);
    if (eventProblem) return this.failMalformed(this.lastPartial, eventProblem);
    if (event.type === "done" || event.type === "error") {
      // A malformed final message never reaches the transcript: the response fails, naming the field.
      const final = event.type === "done" ? event.message : event.error;
      const problem = responseProblem(final);
      if (problem) return this.failMalformed(final, problem);
      final.usage = countedUsage(final.usage);
      this.finish();
      // A failure may have been made up on the way (a relay whose read threw) while the provider still streams: stop it.
      if (event.type === "error") this.signal.abort();
      // Nothing after the terminal event is read: the provider's iterator is released before anyone hears of the end.
      releaseIterator(this.source);
      this.stream = undefined;
      this.source = undefined;
      this.shown(event);
      this.settles?.settle(final);
      return result;
    }
    this.lastPartial = event.partial;
    this.noteEvent();
    this.observe?.(event);
    return result;
  }

  private failMalformed(message: unknown, problem: string): IteratorResult<AssistantMessageEvent> {
    const failure = malformedResponseFailure(this.model, message, problem);
    this.decide(attachClassifiedError(failure, { code: "upstream", message: failure.errorMessage!, retryable: false }));
    return this.takeDecided();
  }

  private answerFailure(error: unknown): IteratorResult<AssistantMessageEvent> {
    if (this.decided) return this.takeDecided();
    if (this.finished) return DONE;
    this.decide(this.endWith(this.callerSignal?.aborted ? "aborted" : "error", errorText(error)));
    return this.takeDecided();
  }

  /** Ends the attempt with `message`: the next read answers its terminal event; a pending read returns at once. */
  private decide(message: AssistantMessage): void {
    message.usage = countedUsage(message.usage);
    this.finish();
    // The provider may still be streaming (a read that threw, a malformed event): its request is stopped too.
    this.signal.abort();
    this.decided = { type: "error", reason: message.stopReason === "aborted" ? "aborted" : "error", error: message };
    this.settles?.settle(message);
    this.letGo();
  }

  private takeDecided(): IteratorResult<AssistantMessageEvent> {
    const event = this.decided!;
    this.decided = undefined;
    this.shown(event);
    return { value: event, done: false };
  }

  /** A terminal event on its way to the reader: the observer sees it; once committed, a failure is classified. */
  private shown(event: Extract<AssistantMessageEvent, { type: "done" | "error" }>): void {
    this.observe?.(event);
    if (this.committed && event.type === "error") {
      attachClassifiedError(event.error, classifyError(event.error, this.lastResponse));
    }
  }

  /** Ends the provider's stream, so a read waiting on it returns, and releases its iterator. */
  private letGo(): void {
    const { stream, source } = this;
    this.stream = undefined;
    this.source = undefined;
    // pi-ai's end() wakes a read that waits on a provider which ignores its signal (guarded by the stream-timeouts tests).
    stream?.end();
    releaseIterator(source);
    this.stopRelay?.();
  }

  // The idle timer is not re-armed per event: it records when the last event came and, when it
  // fires early, waits only for the rest of the window. The first event likewise keeps the
  // first-event timer when it is due no later than the idle window would end (with the default
  // limits, always): that timer then checks the idle window. Every timeout still fires when the
  // idle window after the last event ends.
  private noteEvent(): void {
    const { clock, streamIdleTimeoutMs } = this.watchdogs;
    if (this.idleArmed) {
      if (streamIdleTimeoutMs > 0) this.lastEventAt = clock.now();
      return;
    }
    this.idleArmed = true;
    if (this.timer === undefined && streamIdleTimeoutMs === 0) return;
    const now = clock.now();
    this.lastEventAt = now;
    if (this.timer !== undefined) {
      if (streamIdleTimeoutMs > 0 && this.firstEventDueAt <= now + streamIdleTimeoutMs) return;
      clock.clearTimeout(this.timer);
    }
    this.timer = streamIdleTimeoutMs > 0 ? clock.setTimeout(() => this.onTimer(), streamIdleTimeoutMs) : undefined;
  }

  /** The one timer fired: before the first event it is the first-event timeout, after it an idle check. */
  private onTimer(): void {
    if (this.finished) return;
    const { clock, firstEventTimeoutMs, streamIdleTimeoutMs } = this.watchdogs;
    if (!this.idleArmed) return this.onTimeout("first_event", firstEventTimeoutMs);
    const quietFor = clock.now() - this.lastEventAt;
    if (quietFor >= streamIdleTimeoutMs) this.onTimeout("idle", streamIdleTimeoutMs);
    else this.timer = clock.setTimeout(() => this.onTimer(), streamIdleTimeoutMs - quietFor);
  }

  private onTimeout(kind: LlmTimeoutKind, ms: number): void {
    if (this.finished || this.callerSignal?.aborted) return;
    const error = new LlmTimeoutError(kind, ms);
    const message = attachClassifiedError(this.endWith("error", error.message), classifyError(error));
    this.finish();
    this.signal.abort(error);
    this.decide(message);
  }

  private finish(): void {
    this.finished = true;
    if (this.timer !== undefined) this.watchdogs.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.signal.release();
  }

  private endWith(stopReason: "error" | "aborted", text: string): AssistantMessage {
    return this.lastPartial
      ? snapshotAsFailure(this.lastPartial, stopReason, text)
      : createFailureMessage(this.model, stopReason, text);
  }
}

/** `stream` itself when it is pi-ai's (whose `end()` wakes a pending read), else a relay of it that can be ended (a host's own `end()` may do nothing or throw); a failure of the relayed stream is left on `request`. */
function endable(stream: AsyncIterable<AssistantMessageEvent>, request: WatchedAttempt): EndableStream {
  if (isPiAiStream(stream)) return stream as EndableStream;
  const relay = new RelayStream();
  request.stopRelay = pipeEvents(stream, {
    event: (event) => relay.push(event),
    end: () => relay.end(),
    fail: (error) => {
      request.sourceFailure = { error };
      relay.end();
    },
  });
  return relay;
}

/** Whether `stream` is one of pi-ai's event streams (a value that cannot be read is not). */
function isPiAiStream(stream: AsyncIterable<AssistantMessageEvent>): boolean {
  try {
    return stream instanceof EventStream;
  } catch {
    return false;
  }
}
