/*
 * Reading the chat routes' answers the way a `useChat` page does, with the
 * AI SDK's own code only: `parseJsonEventStream` with
 * `uiMessageChunkSchema` (what `DefaultChatTransport` does), then
 * `readUIMessageStream`.
 */
import type { TurnkitUIMessage } from "@turnkit/ui-stream";
import { parseJsonEventStream, readUIMessageStream, uiMessageChunkSchema, type UIMessageChunk } from "ai";

/** What the AI SDK read: each chunk with the SSE id (seq) seen so far, and the message after each chunk. */
export interface UIStreamReading {
  chunks: UIMessageChunk[];
  message: TurnkitUIMessage;
}

/**
 * Reads a UI message stream body with the AI SDK until `until` says stop
 * (or the stream ends); the connection is then dropped.
 */
export async function readUIStream(
  body: ReadableStream<Uint8Array>,
  until: (message: TurnkitUIMessage, chunk: UIMessageChunk) => boolean = () => false,
): Promise<UIStreamReading> {
  const chunks: UIMessageChunk[] = [];
  const stop = new AbortController();
  const parsed = parseJsonEventStream({ stream: body, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream({
      transform(result, controller) {
        if (!result.success) throw result.error;
        chunks.push(result.value as UIMessageChunk);
        controller.enqueue(result.value as UIMessageChunk);
      },
    }),
  );
  let message: TurnkitUIMessage | undefined;
  for await (const snapshot of readUIMessageStream<TurnkitUIMessage>({ stream: parsed, onError: () => {} })) {
    message = snapshot;
    if (until(snapshot, chunks[chunks.length - 1])) {
      stop.abort();
      break;
    }
  }
  if (!message) throw new Error("the stream made no message");
  return { chunks, message };
}

/** The visible text of a message. */
export function textOf(message: TurnkitUIMessage): string {
  return message.parts.map((part) => (part.type === "text" ? part.text : "")).join("");
}
