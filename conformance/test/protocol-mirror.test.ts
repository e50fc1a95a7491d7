/*
 * The protocol's mirror of the loop's event shapes (so hosts need
 * not depend on the loop) must stay interchangeable with the loop's own types.
 *
 * Type level (checked by `tsc --noEmit -p conformance/tsconfig.json`): the
 * loop's types and the mirror are assignable to each other, both ways.
 * Runtime: one sample of every loop event, and every event of a real scripted
 * run, pass the protocol's schema-based guard.
 */
import type {
  AssistantMessage,
  AssistantMessageEvent,
  ImageContent,
  Message,
  StopReason,
  TextContent,
  ThinkingContent,
  ToolCall,
  ToolResultMessage,
  Usage,
  UserMessage,
} from "@mariozechner/pi-ai";
import { Type } from "@sinclair/typebox";
import {
  agentLoop,
  type AgentEvent,
  type AgentEventSink,
  type AgentListener,
  type AgentMessage,
  type AgentTool,
  type CustomAgentMessages,
} from "@turnkit/agent-loop";
import {
  assistantMessage,
  createScriptedModel,
  response,
  text,
  toolCall,
  toolResultMessage,
  userMessage,
} from "@turnkit/agent-loop/testing";

type AgentEventType = AgentEvent["type"];
import {
  PROTOCOL_AGENT_EVENT_TYPES,
  isProtocolAgentEvent,
  validateProtocolAgentEvent,
  type ProtocolAgentEvent,
  type ProtocolAgentEventListener,
  type ProtocolAgentEventType,
  type ProtocolAssistantMessage,
  type ProtocolAssistantMessageEvent,
  type ProtocolImageContent,
  type ProtocolLlmMessage,
  type ProtocolMessage,
  type ProtocolStopReason,
  type ProtocolTextContent,
  type ProtocolThinkingContent,
  type ProtocolToolCall,
  type ProtocolToolResultMessage,
  type ProtocolUsage,
  type ProtocolUserMessage,
} from "@turnkit/protocol";
import { describe, expect, expectTypeOf, it } from "vitest";

/** Whatever custom messages the loop's `CustomAgentMessages` declares in this program (none today). */
type LoopCustomMessage = CustomAgentMessages[keyof CustomAgentMessages];
/** The mirror of the loop's `AgentEvent` with the same custom messages. */
type MirroredAgentEvent = ProtocolAgentEvent<LoopCustomMessage>;

describe("protocol mirror: type level, both ways", () => {
  it("content blocks, usage and stop reasons", () => {
    expectTypeOf<TextContent>().toExtend<ProtocolTextContent>();
    expectTypeOf<ProtocolTextContent>().toExtend<TextContent>();
    expectTypeOf<ThinkingContent>().toExtend<ProtocolThinkingContent>();
    expectTypeOf<ProtocolThinkingContent>().toExtend<ThinkingContent>();
    expectTypeOf<ImageContent>().toExtend<ProtocolImageContent>();
    expectTypeOf<ProtocolImageContent>().toExtend<ImageContent>();
    expectTypeOf<ToolCall>().toExtend<ProtocolToolCall>();
    expectTypeOf<ProtocolToolCall>().toExtend<ToolCall>();
    expectTypeOf<Usage>().toExtend<ProtocolUsage>();
    expectTypeOf<ProtocolUsage>().toExtend<Usage>();
    expectTypeOf<ProtocolStopReason>().toEqualTypeOf<StopReason>();
  });

  it("messages", () => {
    expectTypeOf<UserMessage>().toExtend<ProtocolUserMessage>();
    expectTypeOf<ProtocolUserMessage>().toExtend<UserMessage>();
    expectTypeOf<AssistantMessage>().toExtend<ProtocolAssistantMessage>();
    expectTypeOf<ProtocolAssistantMessage>().toExtend<AssistantMessage>();
    expectTypeOf<ToolResultMessage>().toExtend<ProtocolToolResultMessage>();
    expectTypeOf<ProtocolToolResultMessage>().toExtend<ToolResultMessage>();
    expectTypeOf<Message>().toExtend<ProtocolLlmMessage>();
    expectTypeOf<ProtocolLlmMessage>().toExtend<Message>();
    expectTypeOf<AgentMessage>().toExtend<ProtocolMessage<LoopCustomMessage>>();
    expectTypeOf<ProtocolMessage<LoopCustomMessage>>().toExtend<AgentMessage>();
  });

  it("assistant message events", () => {
    expectTypeOf<AssistantMessageEvent>().toExtend<ProtocolAssistantMessageEvent>();
    expectTypeOf<ProtocolAssistantMessageEvent>().toExtend<AssistantMessageEvent>();
    expectTypeOf<ProtocolAssistantMessageEvent["type"]>().toEqualTypeOf<AssistantMessageEvent["type"]>();
  });

  it("agent events", () => {
    expectTypeOf<AgentEvent>().toExtend<MirroredAgentEvent>();
    expectTypeOf<MirroredAgentEvent>().toExtend<AgentEvent>();
    expectTypeOf<ProtocolAgentEventType>().toEqualTypeOf<AgentEventType>();
    // Each member on its own, so a drift names the event type.
    expectTypeOf<Extract<AgentEvent, { type: "message_update" }>>().toExtend<
      Extract<MirroredAgentEvent, { type: "message_update" }>
    >();
    expectTypeOf<Extract<MirroredAgentEvent, { type: "message_update" }>>().toExtend<
      Extract<AgentEvent, { type: "message_update" }>
    >();
    expectTypeOf<Extract<AgentEvent, { type: "turn_end" }>>().toExtend<
      Extract<MirroredAgentEvent, { type: "turn_end" }>
    >();
    expectTypeOf<Extract<MirroredAgentEvent, { type: "turn_end" }>>().toExtend<
      Extract<AgentEvent, { type: "turn_end" }>
    >();
  });

  it("a host listener typed with the mirror can subscribe to the loop", () => {
    expectTypeOf<ProtocolAgentEventListener<LoopCustomMessage>>().toExtend<AgentListener>();
    expectTypeOf<ProtocolAgentEventListener<LoopCustomMessage>>().toExtend<AgentEventSink>();
    // A listener that accepts any custom message also accepts the loop's events.
    expectTypeOf<AgentEvent>().toExtend<ProtocolAgentEvent<{ role: string }>>();
  });

  it("custom host messages are representable", () => {
    interface Notice {
      role: "notice";
      text: string;
      timestamp: number;
    }
    const event: ProtocolAgentEvent<Notice> = {
      type: "message_end",
      message: { role: "notice", text: "hi", timestamp: 1 },
    };
    expect(isProtocolAgentEvent(event)).toBe(true);
    // Without the custom type parameter, the mirror is exactly the provider messages.
    // @ts-expect-error a notice is not a provider message
    const plain: ProtocolAgentEvent = event;
    expect(plain).toBe(event);
  });
});

const TS = 1_700_000_000_000;
const call = toolCall("read", { path: "a.txt" }, { id: "call-1" });
const partial = assistantMessage([], { timestamp: TS });
const final = assistantMessage([text("Reading."), call], { timestamp: TS });
const failed = assistantMessage("partial", { stopReason: "error", errorMessage: "upstream reset", timestamp: TS });
const result = toolResultMessage("call-1", "read", "contents", { details: { bytes: 8 }, timestamp: TS });
const prompt = userMessage("read a.txt", { timestamp: TS });

/** At least one sample of every loop event type, typed by the loop itself. */
const samples: { [K in AgentEventType]: Extract<AgentEvent, { type: K }>[] } = {
  agent_start: [{ type: "agent_start" }],
  agent_end: [
    { type: "agent_end", messages: [prompt, final, result] },
    { type: "agent_end", messages: [] },
  ],
  turn_start: [{ type: "turn_start" }],
  turn_end: [
    { type: "turn_end", message: final, toolResults: [result] },
    { type: "turn_end", message: failed, toolResults: [] },
  ],
  message_start: [
    { type: "message_start", message: prompt },
    { type: "message_start", message: partial },
  ],
  message_update: [
    { type: "message_update", message: partial, assistantMessageEvent: { type: "start", partial } },
    {
      type: "message_update",
      message: partial,
      assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "Read", partial },
    },
    {
      type: "message_update",
      message: partial,
      assistantMessageEvent: { type: "thinking_end", contentIndex: 0, content: "hmm", partial },
    },
    {
      type: "message_update",
      message: final,
      assistantMessageEvent: {
        type: "toolcall_end",
        contentIndex: 1,
        toolCall: final.content[1] as ToolCall,
        partial: final,
      },
    },
    {
      type: "message_update",
      message: final,
      assistantMessageEvent: { type: "done", reason: "toolUse", message: final },
    },
    {
      type: "message_update",
      message: failed,
      assistantMessageEvent: { type: "error", reason: "error", error: failed },
    },
  ],
  message_end: [
    { type: "message_end", message: final },
    { type: "message_end", message: result },
  ],
  tool_execution_start: [
    { type: "tool_execution_start", toolCallId: "call-1", toolName: "read", args: { path: "a.txt" } },
  ],
  tool_execution_update: [
    {
      type: "tool_execution_update",
      toolCallId: "call-1",
      toolName: "read",
      args: { path: "a.txt" },
      partialResult: { content: [], details: {} },
    },
  ],
  tool_execution_end: [
    {
      type: "tool_execution_end",
      toolCallId: "call-1",
      toolName: "read",
      result: { content: [text("contents")], details: {} },
      isError: false,
    },
  ],
};

/** A host-side function written only against the mirror. */
function describeForHost(event: MirroredAgentEvent): string {
  switch (event.type) {
    case "agent_start":
    case "turn_start":
      return event.type;
    case "agent_end":
      return `${event.type}:${event.messages.length}`;
    case "turn_end":
      return `${event.type}:${event.toolResults.length}`;
    case "message_start":
    case "message_end":
      return `${event.type}:${event.message.role}`;
    case "message_update":
      return `${event.type}:${event.assistantMessageEvent.type}`;
    case "tool_execution_start":
    case "tool_execution_update":
    case "tool_execution_end":
      return `${event.type}:${event.toolName}`;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

describe("protocol mirror: runtime", () => {
  it("the samples cover all ten loop event types, the same ten the protocol lists", () => {
    expect(Object.keys(samples).sort()).toEqual([...PROTOCOL_AGENT_EVENT_TYPES].sort());
  });

  it("every sample loop event passes the protocol guard and a mirror-typed host function", () => {
    for (const event of Object.values(samples).flat() as AgentEvent[]) {
      expect(validateProtocolAgentEvent(event), event.type).toEqual({ ok: true, event });
      expect(describeForHost(event)).toMatch(new RegExp(`^${event.type}`));
    }
  });

  it("every event of a real scripted run passes the protocol guard", async () => {
    const scripted = createScriptedModel([response([text("Reading."), toolCall("read", { path: "a.txt" })]), "Done."]);
    const read: AgentTool = {
      name: "read",
      label: "Read",
      description: "Reads a file",
      parameters: Type.Object({ path: Type.String() }),
      execute: async (_id, _params, _signal, onUpdate) => {
        onUpdate?.({ content: [text("half")], details: { progress: 0.5 } });
        return { content: [text("contents")], details: { bytes: 8 } };
      },
    };
    const stream = agentLoop(
      [userMessage("read a.txt")],
      { systemPrompt: "", messages: [], tools: [read] },
      { model: scripted.model, convertToLlm: (messages) => messages as Message[] },
      undefined,
      scripted.streamFn,
    );
    const seen = new Set<string>();
    for await (const event of stream) {
      seen.add(event.type);
      expect(validateProtocolAgentEvent(event), event.type).toEqual({ ok: true, event });
    }
    expect([...seen].sort()).toEqual([...PROTOCOL_AGENT_EVENT_TYPES].sort());
  });
});
