import { UI_MESSAGE_STREAM_HEADERS } from "ai";
import { DEFAULT_KEEP_ALIVE_MS, KEEP_ALIVE_COMMENT } from "./defaults.js";
import type { SequencedUIMessageChunk } from "./turnkit-ui-message.js";
import { assertOptionsObject, readOr, shownType } from "./argument-checks.js";

/** Options of {@link toUIMessageStreamSse} and {@link toUIMessageStreamResponse}. */
export interface UIMessageStreamSseOptions {
  /**
   * After this many milliseconds without a chunk (a tool that runs long, an
   * approval that waits, a queued turn), the stream sends an SSE comment
   * (`: keep-alive`), and again at each further interval, so that proxies
   * and browsers do not drop an idle connection. Comments carry no event:
   * the AI SDK's client (`DefaultChatTransport`), `EventSource` and
   * `readSseEvents` skip them. Default {@link DEFAULT_KEEP_ALIVE_MS};
   * `0` sends none. Must be a finite number, 0 or more.
   */
  readonly keepAliveMs?: number;
}

/**
 * Encodes chunks as the AI SDK's UI message stream wire format,
 * Server-Sent Events of `data: <chunk JSON>`, ending with `data: [DONE]`.
 * The last chunk of each event also carries `id: <seq>`, so a client (the
 * browser's `EventSource`, {@link TurnkitChatTransport}, curl) that
 * reconnects with `Last-Event-ID` resumes after the last whole event it
 * received. While no chunk comes, a keep-alive comment goes every
 * `options.keepAliveMs`. Cancelling the stream (a client that went away)
 * stops the comments and the iteration, which stops reading the events; it
 * never stops the turn. Throws a `TypeError` naming `keepAliveMs` when it
 * is not a finite number of 0 or more, naming `chunks` when it is no
 * async iterable, and naming `options` when it is no object. An item of
 * `chunks` that is no `{ chunk, seq }` with a chunk JSON can write fails
 * the stream with a `TypeError` naming the item, and reading stops.
 */
export function toUIMessageStreamSse(
  chunks: AsyncIterable<SequencedUIMessageChunk>,
  options: UIMessageStreamSseOptions = {},
): ReadableStream<Uint8Array> {
  assertOptionsObject("toUIMessageStreamSse", "options", options);
  const keepAliveMs = keepAliveOf(options);
  if (
    readOr(() => typeof (chunks as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator], "") !==
    "function"
  ) {
    throw new TypeError(`toUIMessageStreamSse: chunks must be an async iterable of chunks, got ${shownType(chunks)}`);
  }
  const encoder = new TextEncoder();
  const comment = encoder.encode(KEEP_ALIVE_COMMENT);
  const iterator = chunks[Symbol.asyncIterator]();
  let read = 0;
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const stopKeepAlive = () => {
    clearInterval(keepAlive);
    keepAlive = undefined;
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // Only while waiting for the next chunk: a stream that flows needs no comment.
      if (keepAliveMs > 0) keepAlive = setInterval(() => controller.enqueue(comment), keepAliveMs);
      let next: IteratorResult<SequencedUIMessageChunk>;
      try {
        next = await iterator.next();
      } finally {
        stopKeepAlive();
      }
      if (next.done) {
        controller.enqueue(encoder.encode("data: [DONE]\n\n"));
        controller.close();
        return;
      }
      let text: string;
      try {
        text = eventText(next.value, read++);
      } catch (error) {
        // The stream fails naming the item, and the chunks are no longer read.
        await Promise.resolve()
          .then(() => iterator.return?.(undefined))
          .catch(() => {});
        throw error;
      }
      controller.enqueue(encoder.encode(text));
    },
    async cancel() {
      stopKeepAlive();
      await iterator.return?.(undefined);
    },
  });
}

/**
 * A `Response` serving chunks as a UI message stream: status 200 (or
 * `init.status`), the AI SDK's stream headers (`x-vercel-ai-ui-message-stream: v1`,
 * no caching or buffering) plus `init.headers`, the body of
 * {@link toUIMessageStreamSse} (with `init.keepAliveMs`). Hono, Next.js
 * route handlers and any `fetch`-style server return it as is. Throws
 * what {@link toUIMessageStreamSse} throws, and a `TypeError` naming `init`
 * when it is no object.
 */
export function toUIMessageStreamResponse(
  chunks: AsyncIterable<SequencedUIMessageChunk>,
  init: { status?: number; headers?: Record<string, string> } & UIMessageStreamSseOptions = {},
): Response {
  assertOptionsObject("toUIMessageStreamResponse", "init", init);
  return new Response(toUIMessageStreamSse(chunks, init), {
    status: init.status ?? 200,
    headers: { ...UI_MESSAGE_STREAM_HEADERS, ...init.headers },
  });
}

function keepAliveOf(options: UIMessageStreamSseOptions): number {
  const { keepAliveMs = DEFAULT_KEEP_ALIVE_MS } = options;
  if (typeof keepAliveMs !== "number" || !Number.isFinite(keepAliveMs) || keepAliveMs < 0)
    throw new TypeError(
      `toUIMessageStreamSse: keepAliveMs must be a finite number of milliseconds, 0 or more (0: no keep-alive), got ${typeof keepAliveMs === "number" ? String(keepAliveMs) : shownType(keepAliveMs)}`,
    );
  return keepAliveMs;
}

/**
 * The SSE text of one item of the chunks: `data: <chunk JSON>`, after
 * `id: <seq>` for the last chunk of an event. Throws a `TypeError` naming
 * the item (its position, from 0) when it is no `{ chunk, seq }` with a
 * chunk object JSON can write (a value that cannot be read included),
 * never a line the client cannot parse.
 */
function eventText(item: unknown, index: number): string {
  const parts = readOr(() => {
    const { seq, lastOfEvent, chunk } = item as SequencedUIMessageChunk;
    return { seq, lastOfEvent, chunk, json: JSON.stringify(chunk) as string | undefined };
  }, undefined);
  if (
    parts === undefined ||
    typeof parts.chunk !== "object" ||
    parts.chunk === null ||
    typeof parts.json !== "string" ||
    (parts.lastOfEvent === true && typeof parts.seq !== "number")
  )
    throw new TypeError(
      `toUIMessageStreamSse: chunks item ${index} must be { chunk, seq } with a chunk object JSON can write, got ${shownType(item)}`,
    );
  return `${parts.lastOfEvent === true ? `id: ${parts.seq}\n` : ""}data: ${parts.json}\n\n`;
}
