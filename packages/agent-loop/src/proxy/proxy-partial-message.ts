import { parseStreamingJson, type AssistantMessage, type AssistantMessageEvent, type Model } from "@mariozechner/pi-ai";
import { emptyUsage } from "../synthetic-messages.js";
import type { ProxyAssistantMessageEvent } from "./proxy-protocol.js";

type ContentBlock = AssistantMessage["content"][number];
type BlockOf<T extends ContentBlock["type"]> = Extract<ContentBlock, { type: T }>;
type StreamingToolCall = BlockOf<"toolCall"> & { partialJson?: string };

/** The empty message a proxied response starts from: the requested model's identity, zero usage, stamped now. */
export function emptyProxyMessage(model: Model<any>): AssistantMessage {
  return {
    role: "assistant",
    stopReason: "stop",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: emptyUsage(),
    timestamp: Date.now(),
  };
}

/** Thrown when a delta or end event names a block of another kind; the stream then ends with an `error` event. */
function mismatch(eventType: string, blockKind: string): Error {
  return new Error(`Received ${eventType} for non-${blockKind} content`);
}

function blockAt<T extends ContentBlock["type"]>(
  partial: AssistantMessage,
  index: number,
  type: T,
): BlockOf<T> | undefined {
  const block = partial.content[index];
  return block?.type === type ? (block as BlockOf<T>) : undefined;
}

/**
 * Applies one wire event to `partial` (mutated in place, as providers do)
 * and returns the pi-ai event to emit, every one carrying `partial` itself.
 * Returns `undefined` for an event to skip: a `toolcall_end` for a block that
 * is not a tool call, or a type this version does not know (a newer server).
 * Throws when a delta or text/thinking end names a block of another kind.
 * A tool call's block is replaced by a fresh object on every delta, so a UI
 * that compares blocks by identity sees it change.
 */
export function applyProxyEvent(
  event: ProxyAssistantMessageEvent,
  partial: AssistantMessage,
): AssistantMessageEvent | undefined {
  switch (event.type) {
    case "start":
      return { type: "start", partial };
    case "text_start":
      partial.content[event.contentIndex] = { type: "text", text: "" };
      return { type: "text_start", contentIndex: event.contentIndex, partial };
    case "text_delta": {
      const block = blockAt(partial, event.contentIndex, "text");
      if (!block) throw mismatch(event.type, "text");
      block.text += event.delta;
      return { type: "text_delta", contentIndex: event.contentIndex, delta: event.delta, partial };
    }
    case "text_end": {
      const block = blockAt(partial, event.contentIndex, "text");
      if (!block) throw mismatch(event.type, "text");
      block.textSignature = event.contentSignature;
      return { type: "text_end", contentIndex: event.contentIndex, content: block.text, partial };
    }
    case "thinking_start":
      partial.content[event.contentIndex] = { type: "thinking", thinking: "" };
      return { type: "thinking_start", contentIndex: event.contentIndex, partial };
    case "thinking_delta": {
      const block = blockAt(partial, event.contentIndex, "thinking");
      if (!block) throw mismatch(event.type, "thinking");
      block.thinking += event.delta;
      return { type: "thinking_delta", contentIndex: event.contentIndex, delta: event.delta, partial };
    }
    case "thinking_end": {
      const block = blockAt(partial, event.contentIndex, "thinking");
      if (!block) throw mismatch(event.type, "thinking");
      block.thinkingSignature = event.contentSignature;
      return { type: "thinking_end", contentIndex: event.contentIndex, content: block.thinking, partial };
    }
    case "toolcall_start": {
      const call: StreamingToolCall = {
        type: "toolCall",
        id: event.id,
        name: event.toolName,
        arguments: {},
        partialJson: "",
      };
      partial.content[event.contentIndex] = call;
      return { type: "toolcall_start", contentIndex: event.contentIndex, partial };
    }
    case "toolcall_delta": {
      const call: StreamingToolCall | undefined = blockAt(partial, event.contentIndex, "toolCall");
      if (!call) throw mismatch(event.type, "toolCall");
      const partialJson = (call.partialJson ?? "") + event.delta;
      partial.content[event.contentIndex] = {
        ...call,
        partialJson,
        arguments: parseStreamingJson(partialJson) || {},
      } as StreamingToolCall;
      return { type: "toolcall_delta", contentIndex: event.contentIndex, delta: event.delta, partial };
    }
    case "toolcall_end": {
      const call: StreamingToolCall | undefined = blockAt(partial, event.contentIndex, "toolCall");
      if (!call) return undefined;
      delete call.partialJson;
      return { type: "toolcall_end", contentIndex: event.contentIndex, toolCall: call, partial };
    }
    case "done":
      partial.stopReason = event.reason;
      partial.usage = event.usage;
      return { type: "done", reason: event.reason, message: partial };
    case "error":
      partial.stopReason = event.reason;
      partial.errorMessage = event.errorMessage;
      partial.usage = event.usage;
      return { type: "error", reason: event.reason, error: partial };
    default: {
      const unknown: never = event;
      void unknown;
      return undefined;
    }
  }
}
