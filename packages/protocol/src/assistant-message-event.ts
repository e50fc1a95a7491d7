import type { ProtocolStopReason, ProtocolToolCall } from "./content-blocks.js";
import type { ProtocolAssistantMessage } from "./messages.js";

/**
 * One event of a streamed assistant response: mirror of pi-ai
 * `AssistantMessageEvent`, carried by the loop's `message_update`.
 *
 * Order: `start`, then for each content block `*_start`, `*_delta`...,
 * `*_end` (`contentIndex` is the block's index in `partial.content`), then
 * exactly one of `done` (normal end) or `error` (`stopReason` `error` or
 * `aborted`, with `errorMessage`). Every event except the terminal two
 * carries the `partial` message so far.
 */
export type ProtocolAssistantMessageEvent =
  | { type: "start"; partial: ProtocolAssistantMessage }
  | { type: "text_start"; contentIndex: number; partial: ProtocolAssistantMessage }
  | { type: "text_delta"; contentIndex: number; delta: string; partial: ProtocolAssistantMessage }
  | { type: "text_end"; contentIndex: number; content: string; partial: ProtocolAssistantMessage }
  | { type: "thinking_start"; contentIndex: number; partial: ProtocolAssistantMessage }
  | { type: "thinking_delta"; contentIndex: number; delta: string; partial: ProtocolAssistantMessage }
  | { type: "thinking_end"; contentIndex: number; content: string; partial: ProtocolAssistantMessage }
  | { type: "toolcall_start"; contentIndex: number; partial: ProtocolAssistantMessage }
  | { type: "toolcall_delta"; contentIndex: number; delta: string; partial: ProtocolAssistantMessage }
  | { type: "toolcall_end"; contentIndex: number; toolCall: ProtocolToolCall; partial: ProtocolAssistantMessage }
  | {
      type: "done";
      reason: Extract<ProtocolStopReason, "stop" | "length" | "toolUse">;
      message: ProtocolAssistantMessage;
    }
  | { type: "error"; reason: Extract<ProtocolStopReason, "aborted" | "error">; error: ProtocolAssistantMessage };

/** The `type` of a {@link ProtocolAssistantMessageEvent}. */
export type ProtocolAssistantMessageEventType = ProtocolAssistantMessageEvent["type"];
