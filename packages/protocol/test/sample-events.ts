import {
  createRuntimeEvent,
  type ProtocolAssistantMessage,
  type ProtocolUsage,
  type RuntimeEvent,
  type RuntimeEventPayloadMap,
  type RuntimeEventType,
} from "../src/index.js";

export const zeroUsage: ProtocolUsage = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

export function assistantMessage(overrides: Partial<ProtocolAssistantMessage> = {}): ProtocolAssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text: "hello" }],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-test",
    usage: zeroUsage,
    stopReason: "stop",
    timestamp: 1,
    ...overrides,
  };
}

let seq = 0;

/** A valid event of `type` with `payload`, numbered in creation order. */
export function event<TType extends RuntimeEventType>(type: TType, payload: RuntimeEventPayloadMap[TType]): RuntimeEvent<TType> {
  seq += 1;
  return createRuntimeEvent({ eventId: `evt-${seq}`, sessionId: "sess-1", turnId: "turn-1", seq, type, payload });
}

/** One valid event of every type and of every chunk kind, in a plausible turn order. */
export function sampleTurn(): RuntimeEvent[] {
  return [
    event("session.status", { status: "running" }),
    event("debug.trace", { phase: "agent_start", level: "debug", message: "agent started" }),
    event("stream.resp", { messageId: "m1", chunkIndex: 0, chunk: { kind: "thinking", delta: "Let me look." } }),
    event("stream.resp", { messageId: "m1", chunkIndex: 1, chunk: { kind: "text", delta: "Reading " } }),
    event("stream.resp", {
      messageId: "m1",
      chunkIndex: 2,
      chunk: { kind: "tool_call", toolCallId: "call-1", toolName: "read", status: "preparing" },
    }),
    event("stream.resp", {
      messageId: "m1",
      chunkIndex: 3,
      chunk: {
        kind: "tool_call",
        toolCallId: "call-1",
        toolName: "read",
        status: "finished",
        arguments: { path: "a.txt" },
        result: { content: [{ type: "text", text: "contents" }], isError: false, details: { bytes: 8 } },
        durationMs: 12,
      },
    }),
    event("stream.resp", { messageId: "m1", chunkIndex: 4, chunk: { kind: "finish", reason: "toolUse", usage: zeroUsage } }),
    event("message.persisted", {
      reason: "messageDelta",
      messages: [
        { role: "user", content: "read a.txt", timestamp: 0 },
        assistantMessage({ stopReason: "toolUse" }),
        { role: "toolResult", toolCallId: "call-1", toolName: "read", content: [], isError: false, timestamp: 2 },
        { role: "notice", text: "a host-only message" } as { role: string },
      ],
      messageIds: ["u1", "m1", "t1", "n1"],
    }),
    event("action.required", {
      requestId: "approval:call-2",
      kind: "tool_approval",
      toolCallId: "call-2",
      toolName: "bash",
      arguments: { command: "rm -rf build" },
      messageId: "m1",
      reason: "bash needs a person's approval",
      timeoutMs: 60_000,
    }),
    event("debug.trace", {
      phase: "tool_execution_update",
      level: "info",
      message: "progress",
      attrs: { toolCallId: "call-1", percent: 50 },
    }),
    event("stream.resp", {
      messageId: "m2",
      chunkIndex: 0,
      chunk: { kind: "finish", reason: "error", error: { code: "rate_limited", message: "429 Too Many Requests" } },
    }),
    event("session.status", { status: "failed", error: { code: "rate_limited", message: "429 Too Many Requests" } }),
  ];
}
