import { EventStream, type AssistantMessage, type AssistantMessageEvent } from "@mariozechner/pi-ai";
import type { EventSink } from "./event-sink.js";
import { iteratorResultProblem } from "./stream-errors.js";

export type { EventSink } from "./event-sink.js";

type Reader = (result: IteratorResult<AssistantMessageEvent>) => void;

// `?.`: a stream function may stream something that is no event; it is relayed as it is, for the reader to refuse.
const isFinalEvent = (event: AssistantMessageEvent) => event?.type === "done" || event?.type === "error";

function finalMessageOf(event: AssistantMessageEvent): AssistantMessage {
  if (event.type === "done") return event.message;
  if (event.type === "error") return event.error;
  throw new Error("Unexpected event type for final result");
}

/**
 * The stream a push-driven call-stack layer (overflow recovery, model
 * fallback, a stream function that answers with a promise) writes its
 * events into; the timeouts and the retry are read by pull instead (see
 * `PullStream`). It is a pi-ai `AssistantMessageEventStream`: read by
 * async iteration, `result()` resolves with the final message, pushes after
 * the terminal event or after `end()` are ignored. In addition the layer
 * above may attach to it with {@link pipeEvents} before anything was pushed
 * or read: each push is then handed to that layer synchronously, so a
 * stack of layers relays an event in one hop instead of one async iteration
 * per layer. Once attached, the stream is no longer iterable (its one
 * reader is the layer that attached).
 */
export class RelayStream extends EventStream<AssistantMessageEvent, AssistantMessage> {
  private sink: EventSink | undefined;
  private pending: AssistantMessageEvent[] = [];
  private head = 0;
  private readers: Reader[] = [];
  /** No event is accepted any more: a terminal event was pushed, or `end()` was called. */
  private closed = false;
  /** `end()` was called (or the sink was told the stream ended). */
  private ended = false;
  /** Someone started reading by iteration, or pushed before anyone attached: attaching is no longer possible. */
  private touched = false;

  constructor() {
    // The same completion rule as pi-ai's AssistantMessageEventStream (the class itself is exported as a type only).
    super(isFinalEvent, finalMessageOf);
  }

  override push(event: AssistantMessageEvent): void {
    if (this.closed) return;
    const terminal = isFinalEvent(event);
    if (terminal) {
      this.closed = true;
      super.end(event.type === "done" ? event.message : event.error);
    }
    const sink = this.sink;
    if (sink) {
      sink.event(event);
      if (terminal) this.finishSink(sink);
      return;
    }
    this.touched = true;
    const reader = this.readers.shift();
    if (reader) reader({ value: event, done: false });
    else this.pending.push(event);
  }

  override end(result?: AssistantMessage): void {
    if (result !== undefined) super.end(result);
    this.closed = true;
    if (this.ended) return;
    const sink = this.sink;
    if (sink) {
      this.finishSink(sink);
      return;
    }
    this.ended = true;
    this.touched = true;
    const readers = this.readers;
    this.readers = [];
    for (const reader of readers) reader({ value: undefined, done: true });
  }

  override [Symbol.asyncIterator](): AsyncIterator<AssistantMessageEvent> {
    this.touched = true;
    let released = false;
    const iterator: AsyncIterableIterator<AssistantMessageEvent> = {
      next: () => {
        if (released) return Promise.resolve({ value: undefined, done: true });
        if (this.head < this.pending.length) {
          const value = this.pending[this.head]!;
          this.pending[this.head++] = undefined as never;
          if (this.head === this.pending.length) {
            this.pending = [];
            this.head = 0;
          }
          return Promise.resolve({ value, done: false });
        }
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise<IteratorResult<AssistantMessageEvent>>((resolve) => this.readers.push(resolve));
      },
      return: () => {
        released = true;
        return Promise.resolve({ value: undefined, done: true });
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /** Hands every later event to `sink`; false (nothing attached) once the stream was pushed to, ended or read. */
  attach(sink: EventSink): boolean {
    if (this.touched || this.closed || this.sink) return false;
    this.sink = sink;
    return true;
  }

  /** Stops handing events to the attached sink; later pushes are dropped. */
  detach(): void {
    this.sink = undefined;
    this.closed = true;
    this.ended = true;
  }

  private finishSink(sink: EventSink): void {
    if (this.ended) return;
    this.ended = true;
    this.sink = undefined;
    sink.end();
  }
}

/**
 * Feeds the events of `source` to `sink` until it ends or the returned
 * `stop` is called: synchronously when `source` is a fresh
 * {@link RelayStream} (the layer below is a Turnkit layer), by async
 * iteration otherwise (a provider's stream). A foreign stream's iterator is
 * released (`return()`) at its terminal event, before the sink gets it, and
 * when `stop` is called; `stop` also drops later events. Neither waits for
 * `return()` to settle: a provider that ignores its signal may never settle it.
 */
export function pipeEvents(source: AsyncIterable<AssistantMessageEvent>, sink: EventSink): () => void {
  if (source instanceof RelayStream && source.attach(sink)) return () => source.detach();
  let iterator: AsyncIterator<AssistantMessageEvent> | undefined;
  let stopped = false;
  void (async () => {
    try {
      iterator = source[Symbol.asyncIterator]();
      for (;;) {
        const next = await iterator.next();
        if (stopped) return;
        const problem = iteratorResultProblem(next);
        if (problem) throw new Error(`The model's response is malformed: ${problem}`);
        if (next.done) break;
        const event = next.value;
        // Like a for-await loop that breaks at the terminal event: nothing after it is read, and the
        // iterator is released (its return() called) before the sink hears of the end, so a
        // discarded attempt's stream is let go before the layer above sends the next one.
        if (isFinalEvent(event)) {
          stopped = true;
          releaseIterator(iterator);
        }
        sink.event(event);
        if (stopped) return;
      }
    } catch (error) {
      if (!stopped) sink.fail(error);
      return;
    }
    sink.end();
  })();
  return () => {
    if (stopped) return;
    stopped = true;
    releaseIterator(iterator);
  };
}

/**
 * {@link pipeEvents} for a layer that decides once: `sinkFor` gets a
 * `settle` function; once called, reading stops and no callback of the sink
 * is called again (also not for an event already on its way).
 */
export function pipeUntilSettled(
  source: AsyncIterable<AssistantMessageEvent>,
  sinkFor: (settle: () => void) => EventSink,
): void {
  let settled = false;
  let stop: (() => void) | undefined;
  const settle = () => {
    if (settled) return;
    settled = true;
    stop?.();
  };
  const sink = sinkFor(settle);
  stop = pipeEvents(source, {
    event: (event) => {
      if (!settled) sink.event(event);
    },
    end: () => {
      if (!settled) sink.end();
    },
    fail: (error) => {
      if (!settled) sink.fail(error);
    },
  });
  if (settled) stop();
}

/** Asks an iterator to stop and does not wait for the answer; a failing `return()` changes nothing. */
export function releaseIterator(iterator: AsyncIterator<AssistantMessageEvent> | undefined): void {
  try {
    const returned = iterator?.return?.();
    if (returned && typeof returned.then === "function") returned.then(undefined, () => undefined);
  } catch {
    // A failing return() changes nothing for the caller: its stream has ended.
  }
}
