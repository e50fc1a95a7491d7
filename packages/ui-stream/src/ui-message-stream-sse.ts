import { UI_MESSAGE_STREAM_HEADERS } from "ai";
import type { SequencedUIMessageChunk } from "./turnkit-ui-message.js";

/**
 * Encodes chunks as the AI SDK's UI message stream wire format,
 * Server-Sent Events of `data: <chunk JSON>`, ending with `data: [DONE]`.
 * The last chunk of each event also carries `id: <seq>`, so a client (the
 * browser's `EventSource`, {@link TurnkitChatTransport}, curl) that
 * reconnects with `Last-Event-ID` resumes after the last whole event it
 * received. Cancelling the stream (a client that went away) stops the
 * iteration, which stops reading the events; it never stops the turn.
 */
export function toUIMessageStreamSse(chunks: AsyncIterable<SequencedUIMessageChunk>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = chunks[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) {
        controller.enqueue(encoder.encode("data: [DONE]\n\n"));
        controller.close();
        return;
      }
      const { seq, lastOfEvent, chunk } = next.value;
      controller.enqueue(encoder.encode(`${lastOfEvent ? `id: ${seq}\n` : ""}data: ${JSON.stringify(chunk)}\n\n`));
    },
    async cancel() {
      await iterator.return?.(undefined);
    },
  });
}

/**
 * A `Response` serving chunks as a UI message stream: status 200 (or
 * `init.status`), the AI SDK's stream headers (`x-vercel-ai-ui-message-stream: v1`,
 * no caching or buffering) plus `init.headers`, the body of
 * {@link toUIMessageStreamSse}. Hono, Next.js route handlers and any
 * `fetch`-style server return it as is.
 */
export function toUIMessageStreamResponse(
  chunks: AsyncIterable<SequencedUIMessageChunk>,
  init: { status?: number; headers?: Record<string, string> } = {},
): Response {
  return new Response(toUIMessageStreamSse(chunks), {
    status: init.status ?? 200,
    headers: { ...UI_MESSAGE_STREAM_HEADERS, ...init.headers },
  });
}
