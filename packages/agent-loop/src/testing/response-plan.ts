import {
  parseStreamingJson,
  type AssistantMessage,
  type AssistantMessageEvent,
  type StopReason,
  type ToolCall,
} from "@mariozechner/pi-ai";
import {
  ABORTED_ERROR_MESSAGE,
  DEFAULT_TOOL_ARGUMENTS_CHUNK_SIZE,
  MAX_DEFAULT_TOOL_ARGUMENTS_DELTAS,
} from "./scripted-defaults.js";
import type { ScriptedResponse } from "./script-blocks.js";
import { emptyUsage } from "./message-builders.js";

/** Who produced a message and when: copied into every partial and the final message. */
export interface MessageIdentity {
  api: string;
  provider: string;
  model: string;
  timestamp: number;
}

/**
 * Every event one scripted response produces, computed up front. Each
 * `partial` is a snapshot of the message so far, so a consumer that keeps
 * partials sees them grow (pi-ai providers reuse one mutable object; a
 * snapshot is what that object held at the time of the event). Snapshots
 * are read-only: a block that has ended is shared by every later snapshot,
 * so a response of many events or long blocks costs each event only its
 * list of blocks, not a copy of everything streamed so far. The final
 * message is a copy of its own.
 */
export interface ResponsePlan {
  /** `start`, then each block's start/delta/end events; no terminal event. */
  events: AssistantMessageEvent[];
  /** The empty message of `start`: the base of an abort before any event. */
  initial: AssistantMessage;
  /** The message the terminal event carries. */
  final: AssistantMessage;
  /** `done` for stop/length/toolUse, `error` for error/aborted. */
  terminal: AssistantMessageEvent;
}

/** Splits into words, each carrying its leading whitespace; the pieces concatenate to `value`. */
export function splitIntoWords(value: string): string[] {
  const words: string[] = value.match(/\s*\S+/g) ?? [];
  const consumed = words.reduce((length, word) => length + word.length, 0);
  if (consumed < value.length) {
    if (words.length === 0) words.push(value);
    else words[words.length - 1] += value.slice(consumed);
  }
  return words;
}

/** Splits into pieces of `size` characters (the last may be shorter). Empty input gives no pieces. */
export function splitIntoChunks(value: string, size: number): string[] {
  const chunks: string[] = [];
  for (let index = 0; index < value.length; index += size) chunks.push(value.slice(index, index + size));
  return chunks;
}

/** A copy of `partial` ended with `stopReason` and `errorMessage`. */
export function endedMessage(
  partial: AssistantMessage,
  stopReason: "error" | "aborted",
  errorMessage: string,
): AssistantMessage {
  return { ...structuredClone(partial), stopReason, errorMessage };
}

/** The `error` event of a request aborted with `partial` streamed so far. */
export function abortedEvent(partial: AssistantMessage): AssistantMessageEvent {
  return { type: "error", reason: "aborted", error: endedMessage(partial, "aborted", ABORTED_ERROR_MESSAGE) };
}

/** The terminal event a finished message calls for. */
export function terminalEventFor(message: AssistantMessage): AssistantMessageEvent {
  if (message.stopReason === "error" || message.stopReason === "aborted") {
    return { type: "error", reason: message.stopReason, error: message };
  }
  return { type: "done", reason: message.stopReason, message };
}

/** The partial of the last event that carries one, or `fallback`. */
export function lastPartialOf(events: readonly AssistantMessageEvent[], fallback: AssistantMessage): AssistantMessage {
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index];
    if ("partial" in event) return event.partial;
  }
  return fallback;
}

function defaultErrorMessage(stopReason: StopReason): string {
  return stopReason === "aborted" ? ABORTED_ERROR_MESSAGE : `Scripted response ended with stopReason "${stopReason}"`;
}

/**
 * Plans the events of one response. Tool calls without an id take one from
 * `nextToolCallId`, in content order. Pure apart from that counter.
 */
export function planResponse(
  scripted: ScriptedResponse,
  identity: MessageIdentity,
  options: { chunkSize?: number; nextToolCallId: () => string },
): ResponsePlan {
  const chunkSize = scripted.chunkSize ?? options.chunkSize;
  const splitText = (value: string) => (chunkSize ? splitIntoChunks(value, chunkSize) : splitIntoWords(value));
  const splitJson = (value: string) =>
    splitIntoChunks(
      value,
      chunkSize ??
        Math.max(DEFAULT_TOOL_ARGUMENTS_CHUNK_SIZE, Math.ceil(value.length / MAX_DEFAULT_TOOL_ARGUMENTS_DELTAS)),
    );

  const working: AssistantMessage = {
    role: "assistant",
    content: [],
    api: identity.api,
    provider: identity.provider,
    model: identity.model,
    usage: scripted.usage ? structuredClone(scripted.usage) : emptyUsage(),
    stopReason: "stop",
    timestamp: identity.timestamp,
  };
  if (scripted.responseId !== undefined) working.responseId = scripted.responseId;
  const initial = structuredClone(working);
  // The blocks that have ended, shared by every later snapshot (nothing changes them after their end); the
  // block being streamed is copied into each snapshot, so each holds what the message held at its event.
  const ended: AssistantMessage["content"] = [];
  let streaming: AssistantMessage["content"][number] | undefined;
  const snapshot = (): AssistantMessage => ({
    ...working,
    usage: { ...working.usage, cost: { ...working.usage.cost } },
    content: streaming ? [...ended, { ...streaming }] : [...ended],
  });
  const events: AssistantMessageEvent[] = [{ type: "start", partial: snapshot() }];

  for (const block of scripted.content) {
    const contentIndex = working.content.length;
    switch (block.type) {
      case "text": {
        const streamed: AssistantMessage["content"][number] & { type: "text" } = { type: "text", text: "" };
        working.content.push(streamed);
        streaming = streamed;
        events.push({ type: "text_start", contentIndex, partial: snapshot() });
        for (const delta of splitText(block.text)) {
          streamed.text += delta;
          events.push({ type: "text_delta", contentIndex, delta, partial: snapshot() });
        }
        if (block.textSignature !== undefined) streamed.textSignature = block.textSignature;
        events.push({ type: "text_end", contentIndex, content: block.text, partial: snapshot() });
        ended.push(streamed);
        streaming = undefined;
        break;
      }
      case "thinking": {
        const streamed: AssistantMessage["content"][number] & { type: "thinking" } = { type: "thinking", thinking: "" };
        if (block.redacted !== undefined) streamed.redacted = block.redacted;
        working.content.push(streamed);
        streaming = streamed;
        events.push({ type: "thinking_start", contentIndex, partial: snapshot() });
        for (const delta of splitText(block.thinking)) {
          streamed.thinking += delta;
          events.push({ type: "thinking_delta", contentIndex, delta, partial: snapshot() });
        }
        if (block.thinkingSignature !== undefined) streamed.thinkingSignature = block.thinkingSignature;
        events.push({ type: "thinking_end", contentIndex, content: block.thinking, partial: snapshot() });
        ended.push(streamed);
        streaming = undefined;
        break;
      }
      case "toolCall": {
        const streamed: ToolCall = {
          type: "toolCall",
          id: block.id ?? options.nextToolCallId(),
          name: block.name,
          arguments: {},
        };
        working.content.push(streamed);
        streaming = streamed;
        events.push({ type: "toolcall_start", contentIndex, partial: snapshot() });
        let json = "";
        for (const delta of splitJson(JSON.stringify(block.arguments ?? {}))) {
          json += delta;
          streamed.arguments = parseStreamingJson(json);
          events.push({ type: "toolcall_delta", contentIndex, delta, partial: snapshot() });
        }
        streamed.arguments = structuredClone(block.arguments ?? {});
        if (block.thoughtSignature !== undefined) streamed.thoughtSignature = block.thoughtSignature;
        events.push({ type: "toolcall_end", contentIndex, toolCall: structuredClone(streamed), partial: snapshot() });
        ended.push(streamed);
        streaming = undefined;
        break;
      }
      default: {
        const unknown: never = block;
        throw new Error(`Unknown scripted block type: ${JSON.stringify(unknown)}`);
      }
    }
  }

  const final: AssistantMessage = { ...structuredClone(working), stopReason: scripted.stopReason };
  if (scripted.stopReason === "error" || scripted.stopReason === "aborted") {
    final.errorMessage = scripted.errorMessage ?? defaultErrorMessage(scripted.stopReason);
  } else if (scripted.errorMessage !== undefined) {
    final.errorMessage = scripted.errorMessage;
  }
  return { events, initial, final, terminal: terminalEventFor(final) };
}
