/*
 * Reading a stream the way a `useChat` page does, with the AI SDK's own
 * code only: the SSE body is parsed and every chunk validated by
 * `parseJsonEventStream` with `uiMessageChunkSchema` (what
 * `DefaultChatTransport` does), and the message is built by
 * `readUIMessageStream`.
 */
import type { RuntimeEvent } from "@turnkit/protocol";
import {
  type ChatStatus,
  type ChatTransport,
  parseJsonEventStream,
  readUIMessageStream,
  uiMessageChunkSchema,
  type UIMessageChunk,
} from "ai";
import {
  type SequencedUIMessageChunk,
  type TurnkitUIMessage,
  toUIMessageChunks,
  toUIMessageStreamSse,
} from "../../src/index.js";
import { HeadlessChat } from "./headless-chat.js";

/** What the AI SDK made of a stream: every chunk it parsed, the final message, the errors it reported. */
export interface AiSdkReading {
  chunks: UIMessageChunk[];
  message: TurnkitUIMessage;
  errors: string[];
}

/**
 * An SSE body parsed and validated as the AI SDK's `DefaultChatTransport`
 * does (`parseJsonEventStream` with `uiMessageChunkSchema`): its chunks,
 * each also shown to `onChunk`; a chunk the schema refuses errors the stream.
 */
export function parsedChunks(
  body: ReadableStream<Uint8Array>,
  onChunk?: (chunk: UIMessageChunk) => void,
): ReadableStream<UIMessageChunk> {
  return parseJsonEventStream({ stream: body, schema: uiMessageChunkSchema }).pipeThrough(
    new TransformStream({
      transform(result, controller) {
        if (!result.success) throw result.error;
        onChunk?.(result.value as UIMessageChunk);
        controller.enqueue(result.value as UIMessageChunk);
      },
    }),
  );
}

/** Parses and validates an SSE body with the AI SDK, then builds the message with `readUIMessageStream`. */
export async function readWithAiSdk(body: ReadableStream<Uint8Array>): Promise<AiSdkReading> {
  const chunks: UIMessageChunk[] = [];
  const parsed = parsedChunks(body, (chunk) => chunks.push(chunk));
  const errors: string[] = [];
  let message: TurnkitUIMessage | undefined;
  for await (const snapshot of readUIMessageStream<TurnkitUIMessage>({
    stream: parsed,
    onError: (error) => errors.push(error instanceof Error ? error.message : String(error)),
  }))
    message = snapshot;
  if (!message) throw new Error("the AI SDK built no message");
  return { chunks, message, errors };
}

/** A turn's events served as Turnkit serves them (SSE with seq ids), resuming after `afterSeq`, read by the AI SDK. */
export function readEventsWithAiSdk(events: readonly RuntimeEvent[], afterSeq = 0): Promise<AiSdkReading> {
  return readWithAiSdk(toUIMessageStreamSse(toUIMessageChunks(events, { afterSeq })));
}

/** An SSE body of the given chunks, ending with `[DONE]`. */
export function sseOf(chunks: SequencedUIMessageChunk[]): ReadableStream<Uint8Array> {
  return toUIMessageStreamSse(
    (async function* () {
      yield* chunks;
    })(),
  );
}

/** Every chunk of a turn's events (with seq), collected. */
export async function collectChunks(events: readonly RuntimeEvent[], afterSeq = 0): Promise<SequencedUIMessageChunk[]> {
  const out: SequencedUIMessageChunk[] = [];
  for await (const chunk of toUIMessageChunks(events, { afterSeq })) out.push(chunk);
  return out;
}

/** The visible text of a message: its text parts, joined. */
export function textOf(message: TurnkitUIMessage): string {
  return message.parts.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** What a `useChat` page ends with after one turn streamed into it: the chat's status, its error, the answer. */
export interface LiveChatReading {
  status: ChatStatus;
  error: string | undefined;
  message: TurnkitUIMessage;
}

/**
 * A turn's events as a `useChat` page receives them live: the AI SDK's chat
 * core (`AbstractChat`, what `useChat` wraps) sends a message and reads the
 * turn's SSE body, parsed as `DefaultChatTransport` parses it. Unlike
 * `readUIMessageStream`, the chat core stops at an `error` chunk.
 */
export async function readLiveWithAiSdk(events: readonly RuntimeEvent[]): Promise<LiveChatReading> {
  const transport: ChatTransport<TurnkitUIMessage> = {
    sendMessages: async () => parsedChunks(toUIMessageStreamSse(toUIMessageChunks(events))),
    reconnectToStream: async () => null,
  };
  const chat = new HeadlessChat({ id: "live", transport });
  await chat.sendMessage({ text: "hello" });
  return { status: chat.status, error: chat.error?.message, message: chat.messages[chat.messages.length - 1] };
}
