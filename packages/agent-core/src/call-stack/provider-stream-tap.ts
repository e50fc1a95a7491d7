import { EventStream, type AssistantMessageEvent } from "@mariozechner/pi-ai";
import type { EventSink } from "./event-sink.js";

/** The fields of pi-ai's `EventStream` a tap relies on (plain fields of its published JavaScript). */
interface PiEventStreamFields {
  queue: AssistantMessageEvent[];
  waiting: unknown[];
  done: boolean;
  push(event: AssistantMessageEvent): void;
  end(result?: unknown): void;
}

const piIterator = EventStream.prototype[Symbol.asyncIterator];

/**
 * Reads a provider's pi-ai `AssistantMessageEventStream` without async
 * iteration: the stream's own `push` and `end` (own properties of this one
 * instance) hand what they queued to `sink` right after queueing it, so a
 * streamed delta costs a function call instead of an async generator step
 * and a microtask. Events already queued (or an end already reached) are
 * handed over in a microtask, never inside the caller's call. What the sink sees is what a
 * `for await` over the stream would see, in the same order: every event up
 * to and including the terminal `done` or `error`, or `end()` when the
 * stream ended without one. A push made while the sink is still handling
 * an event (a layer that aborts the provider, which then pushes) waits
 * behind it.
 *
 * Answers `undefined` (nothing tapped) for anything but a fresh stream of
 * the pi-ai copy this package uses, whose iteration nobody started and
 * whose `push` and iterator are pi-ai's own: the caller then iterates it.
 * Otherwise answers the function that stops the tap: later events stay in
 * the stream's queue, as with an iterator that stopped reading.
 */
export function tapProviderStream(
  source: AsyncIterable<AssistantMessageEvent>,
  sink: EventSink,
): (() => void) | undefined {
  if (!(source instanceof EventStream) || source[Symbol.asyncIterator] !== piIterator) return undefined;
  const stream = source as unknown as PiEventStreamFields;
  if (
    !Array.isArray(stream.queue) ||
    !Array.isArray(stream.waiting) ||
    stream.waiting.length > 0 ||
    typeof stream.done !== "boolean"
  )
    return undefined;
  const ownPush = Object.prototype.hasOwnProperty.call(stream, "push") ? stream.push : undefined;
  const ownEnd = Object.prototype.hasOwnProperty.call(stream, "end") ? stream.end : undefined;
  const push = stream.push;
  const end = stream.end;
  let started = false;
  let draining = false;
  let finished = false;

  const stop = () => {
    if (finished) return;
    finished = true;
    // Undone in the reverse order of the tap: deleting the property added last rolls the stream's
    // shape back, where deleting an earlier one turns the stream into a slow dictionary object.
    if (ownEnd) stream.end = ownEnd;
    else delete (stream as Partial<PiEventStreamFields>).end;
    if (ownPush) stream.push = ownPush;
    else delete (stream as Partial<PiEventStreamFields>).push;
  };
  const drain = () => {
    if (!started || draining || finished) return;
    draining = true;
    const queue = stream.queue;
    try {
      while (queue.length > 0 && !finished) {
        const event = queue.length === 1 ? queue.pop()! : queue.shift()!;
        sink.event(event);
        // Like a for-await loop that stops at the terminal event: nothing after it is read.
        if (event.type === "done" || event.type === "error") {
          stop();
          break;
        }
      }
    } catch (error) {
      // A sink must not throw; if it does, it is told so, as a failed read would.
      if (!finished) {
        stop();
        sink.fail(error);
      }
      return;
    } finally {
      draining = false;
    }
    if (!finished && stream.done && queue.length === 0) {
      stop();
      sink.end();
    }
  };

  stream.push = function tappedPush(event: AssistantMessageEvent) {
    push.call(this, event);
    drain();
  };
  stream.end = function tappedEnd(result?: unknown) {
    end.call(this, result);
    drain();
  };
  if (stream.queue.length === 0 && !stream.done) started = true;
  else {
    queueMicrotask(() => {
      started = true;
      drain();
    });
  }
  return stop;
}
