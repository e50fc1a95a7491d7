import type { AssistantMessage } from "@mariozechner/pi-ai";
import { attachClassifiedError, classifyError } from "./classify-error.js";
import { systemClock, type Clock } from "../clock.js";
import {
  LLM_FIRST_EVENT_TIMEOUT_ENV,
  LLM_FIRST_EVENT_TIMEOUT_MS,
  LLM_STREAM_IDLE_TIMEOUT_ENV,
  LLM_STREAM_IDLE_TIMEOUT_MS,
} from "../defaults.js";
import { ConfigErrorCode, TurnkitConfigError } from "../errors.js";
import { pipeEvents, RelayStream } from "./relay-stream.js";
import { LlmTimeoutError, STREAM_ENDED_WITHOUT_FINAL_EVENT, type LlmTimeoutKind } from "./stream-errors.js";
import {
  createFailureMessage,
  errorText,
  invokeStreamFn,
  isTerminalEvent,
  pushTerminalError,
  takeDelegatedAbort,
  type StreamFn,
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
      env[LLM_FIRST_EVENT_TIMEOUT_ENV],
      LLM_FIRST_EVENT_TIMEOUT_MS,
    ),
    streamIdleTimeoutMs: resolveOne(
      "llm.streamIdleTimeoutMs",
      input.streamIdleTimeoutMs,
      env[LLM_STREAM_IDLE_TIMEOUT_ENV],
      LLM_STREAM_IDLE_TIMEOUT_MS,
    ),
  };
}

/**
 * Wraps `streamFn` with the two stream watchdogs, per call (so, inside
 * the retry layer, per attempt): a first-event timer started with the call,
 * and an idle timer re-armed on every event.
 *
 * When one fires, the wrapped request is aborted (through its own signal,
 * or the attempt's signal when the transport retry above hands that over,
 * so the connection is closed; the caller's own signal is never aborted),
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
  return (model, context, callOptions) => {
    const out = new RelayStream();
    const callerSignal = callOptions?.signal;
    // The request's own signal, aborted on a timeout: the caller's, when the layer above made it for
    // this one attempt and hands over aborting it (the transport retry does), else a linked one.
    const delegatedAbort = takeDelegatedAbort(callerSignal);
    const controller = delegatedAbort ? undefined : new AbortController();
    const abortRequest = delegatedAbort ?? ((reason: unknown) => controller!.abort(reason));
    let finished = false;
    let timer: unknown;
    let lastPartial: AssistantMessage | undefined;
    /** Set once the first event arrived: from then on one idle timer, re-armed lazily. */
    let idleArmed = false;
    let lastEventAt = 0;
    /** Stops reading the provider's stream and releases its iterator; set once reading started. */
    let release: (() => void) | undefined;
    const eventTime = burstClock(clock);

    const arm = (kind: LlmTimeoutKind, ms: number) => {
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = ms > 0 ? clock.setTimeout(() => onTimeout(kind, ms), ms) : undefined;
    };
    // Re-arming a timer per streamed delta costs a timer object each time; instead
    // the idle timer records when the last event came and, when it fires early,
    // waits only for the rest of the window.
    const onIdleCheck = () => {
      if (finished) return;
      const quietFor = clock.now() - lastEventAt;
      if (quietFor >= streamIdleTimeoutMs) onTimeout("idle", streamIdleTimeoutMs);
      else timer = clock.setTimeout(onIdleCheck, streamIdleTimeoutMs - quietFor);
    };
    const noteEvent = () => {
      lastEventAt = eventTime();
      if (idleArmed) return;
      idleArmed = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = streamIdleTimeoutMs > 0 ? clock.setTimeout(onIdleCheck, streamIdleTimeoutMs) : undefined;
    };
    const finish = () => {
      finished = true;
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
      callerSignal?.removeEventListener("abort", onCallerAbort);
    };
    const endWith = (stopReason: "error" | "aborted", text: string): AssistantMessage =>
      lastPartial ? snapshotAsFailure(lastPartial, stopReason, text) : createFailureMessage(model, stopReason, text);
    const onTimeout = (kind: LlmTimeoutKind, ms: number) => {
      if (finished || callerSignal?.aborted) return;
      const error = new LlmTimeoutError(kind, ms);
      const message = attachClassifiedError(endWith("error", error.message), classifyError(error));
      finish();
      abortRequest(error);
      release?.();
      pushTerminalError(out, message);
    };
    // One listener on the caller's signal: it aborts the request first (a linked controller follows the
    // caller's reason), then ends the stream.
    const onCallerAbort = () => {
      if (finished) return;
      controller?.abort(callerSignal?.reason);
      finish();
      release?.();
      pushTerminalError(out, endWith("aborted", "Request was aborted"));
    };

    if (callerSignal?.aborted) {
      onCallerAbort();
      return out;
    }
    callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
    arm("first_event", firstEventTimeoutMs);
    // The layer's per-event work, applied as each event arrives from the layer or provider below.
    const requestOptions = controller ? { ...callOptions, signal: controller.signal } : callOptions;
    release = pipeEvents(invokeStreamFn(streamFn, model, context, requestOptions), {
      event(event) {
        if (finished) return;
        if (isTerminalEvent(event)) {
          finish();
          out.push(event);
          out.end();
          return;
        }
        lastPartial = event.partial;
        noteEvent();
        out.push(event);
      },
      end() {
        if (finished) return;
        finish();
        pushTerminalError(out, endWith("error", STREAM_ENDED_WITHOUT_FINAL_EVENT));
      },
      fail(error) {
        if (finished) return;
        finish();
        pushTerminalError(out, endWith(callerSignal?.aborted ? "aborted" : "error", errorText(error)));
      },
    });
    return out;
  };
}

/**
 * When the events of an attempt arrived, for the idle watchdog. A provider
 * delivers a network chunk of events in one macrotask; reading the real
 * clock for each streamed delta was a tenth of the runner's cost per
 * delta, so with the system clock the time is read once per burst (until
 * the next `setImmediate`, which also keeps the event loop from blocking in
 * between), one burst for every request of the process: an idle timeout
 * may then fire early by at most the time the burst took to process, a
 * fraction of a millisecond against windows of minutes. Any other clock
 * (a test's virtual clock) is read per event.
 */
function burstClock(clock: Clock): () => number {
  return clock === systemClock ? burstNow : () => clock.now();
}

/** The system clock's time when the current burst of events began (see {@link burstClock}). */
let burstStartedAt: number | undefined;

function burstNow(): number {
  if (burstStartedAt === undefined) {
    burstStartedAt = systemClock.now();
    setImmediate(forgetBurst);
  }
  return burstStartedAt;
}

function forgetBurst(): void {
  burstStartedAt = undefined;
}

/** A copy of a partial message as a failed final message, without pi-ai's streaming scratch fields. */
function snapshotAsFailure(partial: AssistantMessage, stopReason: "error" | "aborted", errorMessage: string): AssistantMessage {
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
