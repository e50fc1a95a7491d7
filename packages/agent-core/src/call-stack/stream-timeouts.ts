import type {
  AssistantMessage,
  AssistantMessageEvent,
  AssistantMessageEventStream,
  Context,
} from "@mariozechner/pi-ai";
import { RequestAbortController } from "../aborts.js";
import { attachClassifiedError, classifyError } from "./classify-error.js";
import { systemClock, type Clock } from "../clock.js";
import { TURN_DEFAULTS } from "../defaults.js";
import { ConfigErrorCode, TurnkitConfigError } from "../errors.js";
import type { EventSink } from "./event-sink.js";
import { pipeEvents, RelayStream } from "./relay-stream.js";
import { LlmTimeoutError, STREAM_ENDED_WITHOUT_FINAL_EVENT, type LlmTimeoutKind } from "./stream-errors.js";
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

/** The two per-attempt watchdog limits, resolved; `0` means off. */
export interface StreamTimeouts {
  /** Longest wait for the first event of an attempt. */
  firstEventTimeoutMs: number;
  /** Longest silence between two events of an attempt. */
  streamIdleTimeoutMs: number;
}

/** Options of {@link withStreamTimeouts}. */
export interface StreamTimeoutOptions {
  /** `llm.firstEventTimeoutMs`; wins over the environment. */
  firstEventTimeoutMs?: number;
  /** `llm.streamIdleTimeoutMs`; wins over the environment. */
  streamIdleTimeoutMs?: number;
  /** Where timers run. Default: the system clock (timers never hold the process open). */
  clock?: Clock;
  /** Where the env overrides are read. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Resolves each limit as: the input value, else the environment
 * (`TURNKIT_LLM_FIRST_EVENT_TIMEOUT_MS`, `TURNKIT_LLM_STREAM_IDLE_TIMEOUT_MS`),
 * else the default (120 s, 300 s). `0` disables a watchdog.
 *
 * An input value that is not a finite number ≥ 0 throws `TurnkitConfigError`
 * (`invalid_turn_input`). An environment value that is not a non-negative
 * integer is ignored (the default applies), so a stray variable cannot break
 * a host.
 */
export function resolveStreamTimeouts(
  input: Pick<StreamTimeoutOptions, "firstEventTimeoutMs" | "streamIdleTimeoutMs"> = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
): StreamTimeouts {
  return {
    firstEventTimeoutMs: resolveOne(
      "llm.firstEventTimeoutMs",
      input.firstEventTimeoutMs,
      env[TURN_DEFAULTS.llmFirstEventTimeoutEnv],
      TURN_DEFAULTS.llmFirstEventTimeoutMs,
    ),
    streamIdleTimeoutMs: resolveOne(
      "llm.streamIdleTimeoutMs",
      input.streamIdleTimeoutMs,
      env[TURN_DEFAULTS.llmStreamIdleTimeoutEnv],
      TURN_DEFAULTS.llmStreamIdleTimeoutMs,
    ),
  };
}

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
 * the stream ends. Never throws.
 */
export function withStreamTimeouts(streamFn: StreamFn, options: StreamTimeoutOptions = {}): StreamFn {
  const { firstEventTimeoutMs, streamIdleTimeoutMs } = resolveStreamTimeouts(options, options.env);
  const clock = options.clock ?? systemClock;
  if (firstEventTimeoutMs === 0 && streamIdleTimeoutMs === 0) {
    return (model, context, callOptions) => invokeStreamFn(streamFn, model, context, callOptions);
  }
  const watchdogs: Watchdogs = { firstEventTimeoutMs, streamIdleTimeoutMs, clock };
  return (model, context, callOptions) =>
    new TimedRequest(watchdogs, model, callOptions?.signal).start(streamFn, context, callOptions);
}

/** One timeouts layer's limits and clocks, shared by all its requests. */
interface Watchdogs extends StreamTimeouts {
  readonly clock: Clock;
}

/**
 * One request through the timeouts layer: its watchdog state, its own
 * signal (following the caller's), and the sink of the stream below.
 */
class TimedRequest implements EventSink {
  readonly out = new RelayStream();
  /** The request's own signal: aborted on a timeout, and with the caller's reason when the caller aborts. */
  private readonly signal: RequestAbortController;
  private finished = false;
  /** The request's one watchdog timer (see {@link noteEvent}). */
  private timer: unknown;
  /** When the first-event timer is due; the timer then checks the idle window instead once an event came. */
  private firstEventDueAt = 0;
  private lastPartial: AssistantMessage | undefined;
  /** Set once the first event arrived: from then on the timer watches the idle window. */
  private idleArmed = false;
  private lastEventAt = 0;
  /** Stops reading the provider's stream and releases its iterator; set once reading started. */
  private release: (() => void) | undefined;

  constructor(
    private readonly watchdogs: Watchdogs,
    private readonly model: AnyModel,
    private readonly callerSignal: AbortSignal | undefined,
  ) {
    this.signal = new RequestAbortController(callerSignal);
  }

  /** Sends the request through `streamFn` and answers the stream the layer above reads. */
  start(streamFn: StreamFn, context: Context, callOptions: StreamFnOptions | undefined): AssistantMessageEventStream {
    const { callerSignal } = this;
    if (callerSignal?.aborted) {
      this.handleEvent();
      return this.out;
    }
    callerSignal?.addEventListener("abort", this, { once: true });
    const { firstEventTimeoutMs, clock } = this.watchdogs;
    if (firstEventTimeoutMs > 0) {
      this.firstEventDueAt = clock.now() + firstEventTimeoutMs;
      this.timer = clock.setTimeout(() => this.onTimer(), firstEventTimeoutMs);
    }
    const options = { ...callOptions, signal: this.signal.signal };
    this.release = pipeEvents(invokeStreamFn(streamFn, this.model, context, options), this);
    return this.out;
  }

  event(event: AssistantMessageEvent): void {
    if (this.finished) return;
    if (isTerminalEvent(event)) {
      this.finish();
      this.out.push(event);
      this.out.end();
      return;
    }
    this.lastPartial = event.partial;
    this.noteEvent();
    this.out.push(event);
  }

  end(): void {
    if (this.finished) return;
    this.finish();
    pushTerminalError(this.out, this.endWith("error", STREAM_ENDED_WITHOUT_FINAL_EVENT));
  }

  fail(error: unknown): void {
    if (this.finished) return;
    this.finish();
    pushTerminalError(this.out, this.endWith(this.callerSignal?.aborted ? "aborted" : "error", errorText(error)));
  }

  /** The caller aborted (this object is its listener; the request's own signal has followed it already). */
  handleEvent(): void {
    if (this.finished) return;
    this.finish();
    this.release?.();
    pushTerminalError(this.out, this.endWith("aborted", "Request was aborted"));
  }

  // The idle timer is not re-armed per event: it records when the last event came and, when it
  // fires early, waits only for the rest of the window. The first event likewise keeps the
  // first-event timer when it is due no later than the idle window would end (with the default
  // limits, always): that timer then checks the idle window. Every timeout still fires when the
  // idle window after the last event ends.
  private noteEvent(): void {
    const { watchdogs } = this;
    const now = watchdogs.clock.now();
    this.lastEventAt = now;
    if (this.idleArmed) return;
    this.idleArmed = true;
    const { clock, streamIdleTimeoutMs } = watchdogs;
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
    this.release?.();
    pushTerminalError(this.out, message);
  }

  private finish(): void {
    this.finished = true;
    if (this.timer !== undefined) this.watchdogs.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.callerSignal?.removeEventListener("abort", this);
    this.signal.release();
  }

  private endWith(stopReason: "error" | "aborted", text: string): AssistantMessage {
    return this.lastPartial
      ? snapshotAsFailure(this.lastPartial, stopReason, text)
      : createFailureMessage(this.model, stopReason, text);
  }
}

/** A copy of a partial message as a failed final message, without pi-ai's streaming scratch fields. */
function snapshotAsFailure(
  partial: AssistantMessage,
  stopReason: "error" | "aborted",
  errorMessage: string,
): AssistantMessage {
  const content = partial.content.map((block) => {
    const copy = { ...block } as Record<string, unknown>;
    delete copy.partialArgs;
    delete copy.streamIndex;
    delete copy.index;
    return copy as unknown as AssistantMessage["content"][number];
  });
  return { ...partial, content, stopReason, errorMessage };
}

function resolveOne(name: string, input: number | undefined, envValue: string | undefined, fallback: number): number {
  if (input !== undefined) {
    if (typeof input !== "number" || !Number.isFinite(input) || input < 0) {
      throw new TurnkitConfigError(
        ConfigErrorCode.InvalidTurnInput,
        `${name} must be a finite number of milliseconds >= 0 (0 disables), got ${String(input)}`,
      );
    }
    return input;
  }
  if (envValue !== undefined && /^\s*\d+\s*$/.test(envValue)) return Number(envValue);
  return fallback;
}
