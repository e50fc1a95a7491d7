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

const DONE_REASONS: ReadonlySet<unknown> = new Set(["stop", "length", "toolUse"]);
const ERROR_REASONS: ReadonlySet<unknown> = new Set(["aborted", "error"]);
const TOKEN_FIELDS = ["input", "output", "cacheRead", "cacheWrite", "totalTokens"] as const;
const COST_FIELDS = ["input", "output", "cacheRead", "cacheWrite", "total"] as const;

/** A value as an error text shows it: JSON, cut to 60 characters, or its type. */
function shown(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    // Not JSON (a cycle cannot come from JSON.parse, but be safe): its type says enough.
  }
  if (text === undefined) return typeof value;
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function usageProblem(usage: unknown): string | undefined {
  if (typeof usage !== "object" || usage === null) return `usage must be an object, got ${shown(usage)}`;
  const fields = usage as Record<string, unknown>;
  for (const field of TOKEN_FIELDS) {
    if (typeof fields[field] !== "number") return `usage.${field} must be a number, got ${shown(fields[field])}`;
  }
  const cost = fields.cost;
  if (typeof cost !== "object" || cost === null) return `usage.cost must be an object, got ${shown(cost)}`;
  for (const field of COST_FIELDS) {
    const value = (cost as Record<string, unknown>)[field];
    if (typeof value !== "number") return `usage.cost.${field} must be a number, got ${shown(value)}`;
  }
  return undefined;
}

/**
 * What makes a wire event of a known type impossible to apply to `partial`
 * as pi-ai's message shape requires, naming the field; `undefined` when it
 * can be applied. A start names a block index from 0 to the number of
 * blocks (the next one, or one to replace); a delta or end names an index
 * (the block's kind is checked as it is applied); deltas, ids, tool names
 * and signatures are strings; `done` and `error` carry one of their stop
 * reasons and a usage with numbers (`error` may leave its usage out). Events of other types pass (they are
 * skipped, as a newer server's may be).
 */
export function proxyEventProblem(event: unknown, partial: AssistantMessage): string | undefined {
  if (typeof event !== "object" || event === null || typeof (event as { type?: unknown }).type !== "string") {
    return `Malformed proxy event: an event must be an object with a string type, got ${shown(event)}`;
  }
  const fields = event as Record<string, unknown>;
  const problem = fieldProblem(fields.type as string, fields, partial.content.length);
  return problem && `Malformed proxy event ${fields.type}: ${problem}`;
}

function fieldProblem(type: string, event: Record<string, unknown>, blocks: number): string | undefined {
  const index = event.contentIndex;
  const isIndex = typeof index === "number" && Number.isInteger(index) && index >= 0;
  const string = (field: string, optional = false) =>
    typeof event[field] === "string" || (optional && event[field] === undefined)
      ? undefined
      : `${field} must be a string, got ${shown(event[field])}`;
  switch (type) {
    case "text_start":
    case "thinking_start":
    case "toolcall_start":
      if (!isIndex || index > blocks) {
        return `contentIndex must be an integer from 0 to ${blocks}, got ${shown(index)}`;
      }
      return type === "toolcall_start" ? (string("id") ?? string("toolName")) : undefined;
    case "text_delta":
    case "thinking_delta":
    case "toolcall_delta":
      return isIndex ? string("delta") : `contentIndex must be a block index, got ${shown(index)}`;
    case "text_end":
    case "thinking_end":
      return isIndex ? string("contentSignature", true) : `contentIndex must be a block index, got ${shown(index)}`;
    case "toolcall_end":
      return isIndex ? undefined : `contentIndex must be a block index, got ${shown(index)}`;
    case "done":
      if (!DONE_REASONS.has(event.reason))
        return `reason must be "stop", "length" or "toolUse", got ${shown(event.reason)}`;
      return usageProblem(event.usage);
    case "error":
      if (!ERROR_REASONS.has(event.reason)) return `reason must be "aborted" or "error", got ${shown(event.reason)}`;
      // An error without its usage keeps the server's error text, with the usage counted so far.
      return string("errorMessage", true) ?? (event.usage === undefined ? undefined : usageProblem(event.usage));
    default:
      return undefined;
  }
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
      partial.usage = event.usage ?? partial.usage;
      return { type: "error", reason: event.reason, error: partial };
    default: {
      const unknown: never = event;
      void unknown;
      return undefined;
    }
  }
}
