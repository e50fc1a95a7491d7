import type { AssistantMessage, AssistantMessageEvent, AssistantMessageEventStream } from "@mariozechner/pi-ai";
import { onAbort as listenForAbort } from "../shared-abort-listener.js";
import { abortedEvent } from "./response-plan.js";
import type { TimerClock } from "./timer-clock.js";

/** How a pumped stream ends after its events. */
export type StreamEnding =
  /** Push the terminal event (`done` or `error`), then `end()`. */
  | { kind: "terminal"; event: AssistantMessageEvent }
  /** Push the terminal event, then `extraEvents` (dropped by `EventStream`), then `end()`. */
  | { kind: "terminalThenExtra"; event: AssistantMessageEvent; extraEvents: AssistantMessageEvent[] }
  /** `end(result)` without a terminal event. */
  | { kind: "silentEnd"; result?: AssistantMessage }
  /** Nothing more until the signal aborts. */
  | { kind: "hang" };

/** What {@link pumpEvents} streams and how. */
export interface PumpInput {
  stream: AssistantMessageEventStream;
  events: readonly AssistantMessageEvent[];
  ending: StreamEnding;
  /** Partial to end from if the signal aborts before any event carried one. */
  initial: AssistantMessage;
  /** Delay before each event and before the ending; 0 schedules by microtask, never by timer. */
  eventDelayMs: number;
  clock: TimerClock;
  signal?: AbortSignal;
}

/**
 * Pushes `events`, then the ending, onto `stream`, one step at a time and
 * never synchronously inside this call. When `signal` aborts before the
 * stream ended (also if it was aborted already), the pending step is
 * cancelled and the stream ends with an `error` event, reason `"aborted"`,
 * carrying the partial streamed so far. The abort listener is removed when
 * the stream ends; a hanging stream keeps it until the abort.
 */
export function pumpEvents(input: PumpInput): void {
  const { stream, events, ending, clock, signal } = input;
  let next = 0;
  let finished = false;
  let pendingTimer: { handle: unknown } | undefined;
  let lastPartial = input.initial;
  let stopListening: (() => void) | undefined;

  const cancelTimer = () => {
    if (pendingTimer) clock.clearTimeout(pendingTimer.handle);
    pendingTimer = undefined;
  };
  const finish = () => {
    finished = true;
    cancelTimer();
    stopListening?.();
  };
  const finishAborted = () => {
    if (finished) return;
    finish();
    stream.push(abortedEvent(lastPartial));
    stream.end();
  };
  // Deferred by a microtask so `controller.abort()` never runs consumer code synchronously.
  function onAbort() {
    if (finished) return;
    cancelTimer();
    queueMicrotask(finishAborted);
  }

  const runEnding = () => {
    switch (ending.kind) {
      case "terminal":
        finish();
        stream.push(ending.event);
        stream.end();
        return;
      case "terminalThenExtra":
        finish();
        stream.push(ending.event);
        for (const extra of ending.extraEvents) stream.push(extra);
        stream.end();
        return;
      case "silentEnd":
        finish();
        stream.end(ending.result);
        return;
      case "hang":
        return;
      default: {
        const unknown: never = ending;
        throw new Error(`Unknown stream ending: ${JSON.stringify(unknown)}`);
      }
    }
  };

  const step = () => {
    pendingTimer = undefined;
    if (finished) return;
    if (signal?.aborted) {
      finishAborted();
      return;
    }
    if (next < events.length) {
      const event = events[next];
      next += 1;
      if ("partial" in event) lastPartial = event.partial;
      stream.push(event);
      scheduleStep();
      return;
    }
    runEnding();
  };

  const scheduleStep = () => {
    if (input.eventDelayMs > 0) pendingTimer = { handle: clock.setTimeout(step, input.eventDelayMs) };
    else queueMicrotask(step);
  };

  if (signal && !signal.aborted) stopListening = listenForAbort(signal, onAbort);
  if (signal?.aborted) queueMicrotask(finishAborted);
  else scheduleStep();
}

/**
 * Makes `stream`'s async iterator yield `extraEvents` after the stream's own
 * events have run out, as a hand-written stream without pi-ai's
 * after-terminal guard would. `result()` is unchanged.
 */
export function leakEventsPastEnd(
  stream: AssistantMessageEventStream,
  extraEvents: readonly AssistantMessageEvent[],
): void {
  const iterateOwnEvents = stream[Symbol.asyncIterator].bind(stream);
  Object.defineProperty(stream, Symbol.asyncIterator, {
    configurable: true,
    value: async function* () {
      yield* { [Symbol.asyncIterator]: iterateOwnEvents };
      yield* extraEvents;
    },
  });
}
