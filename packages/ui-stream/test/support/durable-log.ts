/*
 * Event logs shaped as `@turnkit/agent-durable` writes them (message ids
 * `<turn>#m<n>`, `durable.approval` and `durable.resume` traces), built by
 * hand so these tests need no Postgres. `examples/durable-server` reads the
 * real logs with the same code.
 */
import {
  createRuntimeEvent,
  type RuntimeEvent,
  type RuntimeEventPayloadMap,
  type RuntimeEventType,
} from "@turnkit/protocol";

/** Builds one turn's log, numbering events 1, 2, 3, … */
export function durableLog(sessionId = "ops", turnId = "t1") {
  const events: RuntimeEvent[] = [];
  const add = <T extends RuntimeEventType>(type: T, payload: RuntimeEventPayloadMap[T]) => {
    const seq = events.length + 1;
    events.push(createRuntimeEvent({ eventId: `${turnId}#${seq}`, sessionId, turnId, seq, type, payload } as any));
    return seq;
  };
  const chunkIndex = new Map<string, number>();
  const chunk = (messageId: string, value: RuntimeEventPayloadMap["stream.resp"]["chunk"]) => {
    const index = chunkIndex.get(messageId) ?? 0;
    chunkIndex.set(messageId, index + 1);
    return add("stream.resp", { messageId, chunkIndex: index, chunk: value });
  };
  return {
    events,
    add,
    running: () => add("session.status", { status: "running" }),
    text: (messageId: string, delta: string) => chunk(messageId, { kind: "text", delta }),
    toolCall: (
      messageId: string,
      toolCallId: string,
      toolName: string,
      status: "preparing" | "started",
      args: Record<string, unknown>,
    ) => chunk(messageId, { kind: "tool_call", toolCallId, toolName, status, arguments: args }),
    toolResult: (messageId: string, toolCallId: string, toolName: string, text: string, isError = false) =>
      chunk(messageId, {
        kind: "tool_call",
        toolCallId,
        toolName,
        status: isError ? "failed" : "finished",
        result: { content: [{ type: "text", text }], isError },
      }),
    finish: (messageId: string, reason: "stop" | "toolUse" = "stop") => chunk(messageId, { kind: "finish", reason }),
    approvalAsked: (toolCallId: string, toolName: string, args: Record<string, unknown>) =>
      add("action.required", {
        requestId: `approval:${toolCallId}`,
        kind: "tool_approval",
        toolCallId,
        toolName,
        arguments: args,
      }),
    approvalResult: (toolCallId: string, result: "approved" | "denied" | "timed out" | "aborted") =>
      add("debug.trace", {
        phase: "durable.approval",
        level: "info",
        message: `approval ${result}`,
        attrs: { requestId: `approval:${toolCallId}`, result },
      }),
    resumed: (fromSeq: number, toSeq: number) =>
      add("debug.trace", {
        phase: "durable.resume",
        level: "warn",
        message: `the turn resumed after a restart; events ${fromSeq}..${toSeq} came from an interrupted step and are superseded`,
        attrs: { supersededFromSeq: fromSeq, supersededToSeq: toSeq },
      }),
    completed: () => add("session.status", { status: "completed" }),
  };
}
