import { assertOptionsObject, readOr, shownType } from "./argument-checks.js";
import type { RuntimeEvent } from "@turnkit/protocol";
import type { SequencedUIMessageChunk } from "./turnkit-ui-message.js";
import { UIStreamError, UIStreamErrorCode } from "./errors.js";
import { UIMessageChunkMapper } from "./ui-message-chunk-mapper.js";

/** Options of {@link toUIMessageChunks}. */
export interface UIMessageChunksOptions {
  /** Yield only the chunks of events with a greater `seq` (a reader resuming after the last event it saw). Default 0. */
  afterSeq?: number;
  /** The id of the assistant UI message. Default: the turn id. */
  messageId?: string;
}

/**
 * The UI message stream chunks of one turn's events (see
 * {@link UIMessageChunkMapper}), each with the `seq` of its event. The
 * events must start at the turn's first one even when resuming: events up
 * to `afterSeq` are mapped (the stream's state depends on them) and their
 * chunks dropped, so what is yielded continues a stream that stopped after
 * `afterSeq` exactly. Ends when the events end; stopping the iteration
 * stops reading them. Throws what the mapper throws, and a `UIStreamError`
 * (`invalid_events`) when `events` is not iterable.
 */
export async function* toUIMessageChunks(
  events: AsyncIterable<RuntimeEvent> | Iterable<RuntimeEvent>,
  options: UIMessageChunksOptions = {},
): AsyncGenerator<SequencedUIMessageChunk> {
  if (!isIterable(events)) {
    throw new UIStreamError({
      code: UIStreamErrorCode.InvalidEvents,
      message: `toUIMessageChunks: events must be an iterable or async iterable of RuntimeEvents, got ${shownType(events)}`,
    });
  }
  assertOptionsObject("toUIMessageChunks", "options", options);
  const mapper = new UIMessageChunkMapper({ messageId: options.messageId });
  const afterSeq = options.afterSeq ?? 0;
  if (typeof afterSeq !== "number" || Number.isNaN(afterSeq))
    throw new TypeError(`toUIMessageChunks: options.afterSeq must be a number, got ${shownType(afterSeq)}`);
  for await (const event of events) {
    const chunks = mapper.map(event);
    if (event.seq <= afterSeq) continue;
    for (let i = 0; i < chunks.length; i++)
      yield { seq: event.seq, lastOfEvent: i === chunks.length - 1, chunk: chunks[i] };
  }
}

/** Whether `value` can be read with `for await`. */
function isIterable(value: unknown): value is AsyncIterable<unknown> | Iterable<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    readOr(
      () =>
        typeof (value as Record<symbol, unknown>)[Symbol.asyncIterator] === "function" ||
        typeof (value as Record<symbol, unknown>)[Symbol.iterator] === "function",
      false,
    )
  );
}
