import type { AssistantMessage, AssistantMessageEvent, AssistantMessageEventStream } from "@mariozechner/pi-ai";
import { describeValue, isUnreadable } from "../message-checks.js";

/** Everything a stream yielded, read to its end by {@link collectStream}. */
export interface CollectedStream {
  /** Every event, in order. */
  events: AssistantMessageEvent[];
  /** The `type` of each event, in order: the shape most assertions need. */
  types: AssistantMessageEvent["type"][];
  /** The text a user would have seen: every `text_delta`, joined. */
  text: string;
  /** What the stream's `result()` resolved to. */
  final: AssistantMessage;
}

/**
 * Reads a stream function's answer to its end (awaiting it first, when the
 * stream function returned a promise), then its `result()`. Rejects when the
 * stream function rejected. A stream whose `result()` never settles (a
 * broken stream, like the `endWithoutDone` fault) keeps it waiting: iterate
 * such a stream yourself. Rejects with a `TypeError` naming the argument
 * when `stream` is (or resolves to) no event stream: an async iterable of
 * events with a `result()` method.
 */
export async function collectStream(
  stream: AssistantMessageEventStream | Promise<AssistantMessageEventStream>,
): Promise<CollectedStream> {
  // Awaiting a value no code can read (a revoked proxy) would fail with the engine's words: refused here.
  const source: unknown = isUnreadable(stream) ? stream : await stream;
  if (!isEventStream(source)) {
    throw new TypeError(
      `collectStream: stream must be an event stream (or a promise of one) as a stream function returns it, got ${describeValue(source)}`,
    );
  }
  const events: AssistantMessageEvent[] = [];
  for await (const event of source) events.push(event);
  const final = await source.result();
  const text = events.map((event) => (event.type === "text_delta" ? event.delta : "")).join("");
  return { events, types: events.map((event) => event.type), text, final };
}

/** Whether `value` has an async iterator and `result()`; a value no code can read (a revoked proxy, a getter that throws) has not. */
function isEventStream(value: unknown): value is AssistantMessageEventStream {
  if (typeof value !== "object" || value === null) return false;
  const stream = value as Partial<Record<typeof Symbol.asyncIterator | "result", unknown>>;
  try {
    return typeof stream[Symbol.asyncIterator] === "function" && typeof stream.result === "function";
  } catch {
    return false;
  }
}
