import {
  createRuntimeEvent,
  type TurnUsage,
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

/** A turn's usage after one request of 120 input and 30 output tokens and one retried attempt that cost 20 input tokens. */
export const sampleTurnUsage: TurnUsage = {
  main: {
    ...zeroUsage,
    input: 140,
    output: 30,
    totalTokens: 170,
    cost: { input: 0.00042, output: 0.00045, cacheRead: 0, cacheWrite: 0, total: 0.00087 },
  },
  auxiliary: zeroUsage,
  total: {
    ...zeroUsage,
    input: 140,
    output: 30,
    totalTokens: 170,
    cost: { input: 0.00042, output: 0.00045, cacheRead: 0, cacheWrite: 0, total: 0.00087 },
  },
  attempts: { main: 2, auxiliary: 0 },
};

let seq = 0;

/** A valid event of `type` with `payload`, numbered in creation order. */
export function event<TType extends RuntimeEventType>(
  type: TType,
  payload: RuntimeEventPayloadMap[TType],
): RuntimeEvent<TType> {
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
    event("runtime.warning", {
      code: "retry_wait",
      message: "rate limited, retrying in 2.1 s",
      family: "main",
      attempt: 1,
      delayMs: 2100,
      error: { code: "rate_limited", message: "429 Too Many Requests" },
    }),
    event("stream.resp", {
      messageId: "m1",
      chunkIndex: 4,
      chunk: {
        kind: "finish",
        reason: "toolUse",
        usage: zeroUsage,
        step: {
          stepIndex: 0,
          usage: sampleTurnUsage.main,
          timing: {
            family: "main",
            attempts: 2,
            backoffMs: 2100,
            durationMs: 3400,
            firstEventMs: 300,
            firstOutputMs: 400,
            decodeMs: 500,
            outputTokensPerSecond: 60,
          },
          turnUsage: sampleTurnUsage,
        },
      },
    }),
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
    event("runtime.warning", {
      code: "late_tool_update",
      message: "read sent an update after its result; ignored",
      toolCallId: "call-1",
      toolName: "read",
    }),
    event("session.status", {
      status: "failed",
      error: { code: "rate_limited", message: "429 Too Many Requests" },
      usage: sampleTurnUsage,
      timing: {
        wallMs: 3600,
        requests: [
          {
            family: "main",
            attempts: 2,
            backoffMs: 2100,
            durationMs: 3400,
            firstEventMs: 300,
            firstOutputMs: 400,
            decodeMs: 500,
            outputTokensPerSecond: 60,
          },
        ],
        toolCalls: [{ toolCallId: "call-1", toolName: "read", queuedMs: 1, runMs: 12 }],
      },
    }),
  ];
}
