import { describe, expect, it } from "vitest";
import {
  PROTOCOL_AGENT_EVENT_TYPES,
  isProtocolAgentEvent,
  isProtocolLlmMessage,
  validateProtocolAgentEvent,
  type ProtocolAgentEvent,
  type ProtocolAnyMessage,
  type ProtocolToolResultMessage,
} from "../src/index.js";
import { assistantMessage } from "./sample-events.js";

interface Notice {
  role: "notice";
  text: string;
}

const toolResult: ProtocolToolResultMessage = {
  role: "toolResult",
  toolCallId: "call-1",
  toolName: "read",
  content: [{ type: "text", text: "ok" }],
  isError: false,
  timestamp: 3,
};

const partial = assistantMessage({ content: [] });
const final = assistantMessage({
  content: [
    { type: "thinking", thinking: "hmm" },
    { type: "toolCall", id: "call-1", name: "read", arguments: { path: "a" } },
  ],
  stopReason: "toolUse",
});

/** One event of each of the ten types, with a custom message where a message goes. */
const events: ProtocolAgentEvent<Notice>[] = [
  { type: "agent_start" },
  { type: "turn_start" },
  { type: "message_start", message: { role: "notice", text: "hidden" } },
  { type: "message_end", message: { role: "notice", text: "hidden" } },
  { type: "message_start", message: partial },
  { type: "message_update", message: partial, assistantMessageEvent: { type: "start", partial } },
  {
    type: "message_update",
    message: final,
    assistantMessageEvent: {
      type: "toolcall_end",
      contentIndex: 1,
      toolCall: { type: "toolCall", id: "call-1", name: "read", arguments: {} },
      partial: final,
    },
  },
  { type: "message_end", message: final },
  { type: "tool_execution_start", toolCallId: "call-1", toolName: "read", args: { path: "a" } },
  {
    type: "tool_execution_update",
    toolCallId: "call-1",
    toolName: "read",
    args: { path: "a" },
    partialResult: { content: [] },
  },
  {
    type: "tool_execution_end",
    toolCallId: "call-1",
    toolName: "read",
    result: { content: [], details: {} },
    isError: false,
  },
  { type: "message_start", message: toolResult },
  { type: "message_end", message: toolResult },
  { type: "turn_end", message: final, toolResults: [toolResult] },
  {
    type: "agent_end",
    messages: [{ role: "user", content: "go", timestamp: 0 }, final, toolResult, { role: "notice", text: "hidden" }],
  },
];

describe("isProtocolAgentEvent", () => {
  it("accepts one event of each of the ten types, custom messages included", () => {
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(PROTOCOL_AGENT_EVENT_TYPES));
    expect(PROTOCOL_AGENT_EVENT_TYPES).toHaveLength(10);
    for (const event of events) expect(validateProtocolAgentEvent(event)).toEqual({ ok: true, event });
  });

  it("rejects unknown types and malformed events, with a readable path", () => {
    expect(isProtocolAgentEvent({ type: "agent_pause" })).toBe(false);
    expect(isProtocolAgentEvent(null)).toBe(false);
    expect(isProtocolAgentEvent({ type: "tool_execution_end", toolCallId: "c", toolName: "t", result: null })).toBe(
      false,
    );
    const result = validateProtocolAgentEvent({
      type: "turn_end",
      message: final,
      toolResults: [{ ...toolResult, isError: "no" }],
    });
    expect(result).toMatchObject({
      ok: false,
      errors: expect.arrayContaining([expect.stringContaining("/toolResults/0/isError")]),
    });
  });

  it("rejects a stream event of the wrong shape inside message_update", () => {
    const update = {
      type: "message_update",
      message: partial,
      assistantMessageEvent: { type: "done", reason: "error", message: final },
    };
    expect(isProtocolAgentEvent(update)).toBe(false);
  });
});

describe("isProtocolLlmMessage", () => {
  it("tells provider messages from custom ones by role", () => {
    const messages: ProtocolAnyMessage[] = [
      final,
      toolResult,
      { role: "user", content: "x", timestamp: 0 },
      { role: "notice" },
    ];
    expect(messages.map(isProtocolLlmMessage)).toEqual([true, true, true, false]);
  });
});
