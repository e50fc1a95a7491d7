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
  /** Hand out one live message as every partial and final message (see {@link ScriptedModelOptions.livePartial}). */
  livePartial?: boolean;
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
  const { events, ending, clock, signal } = input;
  const live = input.livePartial ? new LiveMessageWriter(input.stream) : undefined;
  const stream: Pick<AssistantMessageEventStream, "push" | "end"> = live ?? input.stream;
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
        // Past the end: a provider writes nothing more into its live message.
        for (const extra of ending.extraEvents) input.stream.push(extra);
        stream.end();
        return;
      case "silentEnd":
        finish();
        stream.end(ending.result && live ? live.bring(ending.result) : ending.result);
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
 * Pushes onto a stream the way pi-ai's providers write: one message object,
 * brought up to each event's state as the event is queued (whether or not
 * the consumer has read the events before), is every event's `partial` and
 * the final message. Content blocks are written in place, so a block held
 * past its event grows too.
 */
class LiveMessageWriter {
  private live: AssistantMessage | undefined;

  constructor(private readonly stream: AssistantMessageEventStream) {}

  push(event: AssistantMessageEvent): void {
    this.stream.push(this.liveEvent(event));
  }

  end(result?: AssistantMessage): void {
    this.stream.end(result);
  }

  /** The live message, brought up to `state` (a copy: the script's objects are never handed out). */
  bring(state: AssistantMessage): AssistantMessage {
    const { content, ...fields } = structuredClone(state);
    this.live ??= { ...fields, content: [] };
    Object.assign(this.live, fields);
    const held = this.live.content;
    content.forEach((block, index) => {
      if (held[index]?.type === block.type) Object.assign(held[index], block);
      else held[index] = block;
    });
    held.length = content.length;
    return this.live;
  }

  private liveEvent(event: AssistantMessageEvent): AssistantMessageEvent {
    if (event.type === "done") return { ...event, message: this.bring(event.message) };
    if (event.type === "error") return { ...event, error: this.bring(event.error) };
    return { ...event, partial: this.bring(event.partial) };
  }
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
