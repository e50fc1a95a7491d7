import type { AssistantMessage, AssistantMessageEvent } from "@mariozechner/pi-ai";
import type { ProxyAssistantMessageEvent } from "../proxy/proxy-protocol.js";

/**
 * Turns a provider's events into wire events for one response. Stateful: it
 * remembers which tool calls had argument deltas, so a provider that only
 * sets a call's arguments at `toolcall_end` still gets them across (as one
 * delta right before the end: the client builds arguments from deltas).
 */
export type ProxyEventEncoder = (event: AssistantMessageEvent) => ProxyAssistantMessageEvent[];

/** A fresh {@link ProxyEventEncoder}; use one per response. Never throws. */
export function createProxyEventEncoder(): ProxyEventEncoder {
  const callsWithDeltas = new Set<number>();
  return (event) => {
    switch (event.type) {
      case "start":
        return [{ type: "start" }];
      case "text_start":
      case "thinking_start":
        return [{ type: event.type, contentIndex: event.contentIndex }];
      case "text_delta":
      case "thinking_delta":
        return [{ type: event.type, contentIndex: event.contentIndex, delta: event.delta }];
      case "text_end": {
        const block = event.partial.content[event.contentIndex];
        return [
          {
            type: "text_end",
            contentIndex: event.contentIndex,
            contentSignature: block?.type === "text" ? block.textSignature : undefined,
          },
        ];
      }
      case "thinking_end": {
        const block = event.partial.content[event.contentIndex];
        return [
          {
            type: "thinking_end",
            contentIndex: event.contentIndex,
            contentSignature: block?.type === "thinking" ? block.thinkingSignature : undefined,
          },
        ];
      }
      case "toolcall_start": {
        const block = event.partial.content[event.contentIndex];
        const call = block?.type === "toolCall" ? block : undefined;
        return [
          { type: "toolcall_start", contentIndex: event.contentIndex, id: call?.id ?? "", toolName: call?.name ?? "" },
        ];
      }
      case "toolcall_delta":
        callsWithDeltas.add(event.contentIndex);
        return [{ type: "toolcall_delta", contentIndex: event.contentIndex, delta: event.delta }];
      case "toolcall_end": {
        const end: ProxyAssistantMessageEvent = { type: "toolcall_end", contentIndex: event.contentIndex };
        const args = event.toolCall.arguments ?? {};
        if (callsWithDeltas.has(event.contentIndex) || Object.keys(args).length === 0) return [end];
        return [{ type: "toolcall_delta", contentIndex: event.contentIndex, delta: JSON.stringify(args) }, end];
      }
      case "done":
        return [{ type: "done", reason: event.reason, usage: event.message.usage }];
      case "error":
        return [terminalErrorEvent(event.error)];
      default: {
        const unknown: never = event;
        void unknown;
        return [];
      }
    }
  };
}

/** The wire `error` event for a failed or aborted message. */
export function terminalErrorEvent(message: AssistantMessage): ProxyAssistantMessageEvent {
  const reason = message.stopReason === "aborted" ? "aborted" : "error";
  return { type: "error", reason, errorMessage: message.errorMessage, usage: message.usage };
}

/** The wire `done` or `error` event that ends a response with `message`'s stop reason. */
export function terminalEventFor(message: AssistantMessage): ProxyAssistantMessageEvent {
  switch (message.stopReason) {
    case "stop":
    case "length":
    case "toolUse":
      return { type: "done", reason: message.stopReason, usage: message.usage };
    case "error":
    case "aborted":
      return terminalErrorEvent(message);
    default: {
      const unknown: never = message.stopReason;
      return {
        type: "error",
        reason: "error",
        errorMessage: `Unknown stop reason ${String(unknown)}`,
        usage: message.usage,
      };
    }
  }
}

/** One server-sent-events frame for `event`. */
export function sseFrame(event: ProxyAssistantMessageEvent): string {
  return `data: ${JSON.stringify(event)}\n\n`;
}
