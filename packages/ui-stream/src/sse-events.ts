import { readOr, shownType } from "./argument-checks.js";

/** One Server-Sent Event: its `data` lines joined, and its `id` when it had one. */
export interface SseEvent {
  /** The event's `id:` field, when present. */
  id: string | undefined;
  /** The event's `data:` lines, joined with newlines. */
  data: string;
}

/**
 * The events of a `text/event-stream` body, in order: `data:` and `id:`
 * fields (comments and other fields are skipped; an event with no data is
 * dropped). A read error (a dropped connection) rejects the iteration;
 * stopping the iteration cancels the body. Throws a `TypeError` for a
 * `body` that is no `ReadableStream`.
 */
export async function* readSseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  if (!readOr(() => typeof (body as { pipeThrough?: unknown } | null)?.pipeThrough === "function", false)) {
    throw new TypeError(
      `readSseEvents: body must be a ReadableStream (a fetch Response's body), got ${shownType(body)}`,
    );
  }
  const reader = body.pipeThrough(new TextDecoderStream() as ReadableWritablePair<string, Uint8Array>).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += value;
      for (let end = blockEnd(buffer); end; end = blockEnd(buffer)) {
        const block = buffer.slice(0, end.index);
        buffer = buffer.slice(end.index + end.length);
        const event = parseBlock(block);
        if (event) yield event;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

function blockEnd(buffer: string): { index: number; length: number } | undefined {
  const match = /\r?\n\r?\n/.exec(buffer);
  return match ? { index: match.index, length: match[0].length } : undefined;
}

function parseBlock(block: string): SseEvent | undefined {
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon === 0) continue;
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "data") data.push(value);
    else if (field === "id") id = value;
  }
  return data.length === 0 ? undefined : { id, data: data.join("\n") };
}
