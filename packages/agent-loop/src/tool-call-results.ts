import type { ToolResultMessage } from "@mariozechner/pi-ai";
import type { LoopRun } from "./loop-run.js";
import { errorToolResult, toolResultMessage } from "./synthetic-messages.js";
import type { AgentToolCall, AgentToolResult } from "./types.js";

/** A call that has its result: executed, blocked, skipped or failed. */
export interface FinishedCall {
  toolCall: AgentToolCall;
  result: AgentToolResult<unknown>;
  isError: boolean;
}

/**
 * Answers every call of a response without executing any (L11 truncated
 * responses): start, end and an error result each, in call order.
 */
export async function refuseToolCalls(
  run: LoopRun,
  toolCalls: AgentToolCall[],
  reason: string,
): Promise<ToolResultMessage[]> {
  const results: ToolResultMessage[] = [];
  for (const toolCall of toolCalls) {
    const finished = await skipCall(run, toolCall, reason);
    await recordResult(run, finished, results);
  }
  run.context.messages.push(...results);
  return results;
}

/** Announces a call that is not executed: its start, then its end with an error result `reason`. */
export async function skipCall(run: LoopRun, toolCall: AgentToolCall, reason: string): Promise<FinishedCall> {
  const finished: FinishedCall = { toolCall, result: errorToolResult(reason), isError: true };
  await run.emit({
    type: "tool_execution_start",
    toolCallId: toolCall.id,
    toolName: toolCall.name,
    args: toolCall.arguments,
  });
  await emitEnd(run, finished);
  return finished;
}

/** Emits the call's `tool_execution_end` with its result. */
export async function emitEnd(run: LoopRun, finished: FinishedCall): Promise<void> {
  await run.emit({
    type: "tool_execution_end",
    toolCallId: finished.toolCall.id,
    toolName: finished.toolCall.name,
    result: finished.result,
    isError: finished.isError,
  });
}

/**
 * Adds the tool-result message of a finished call to the run's new messages,
 * announces it, then appends it to `results`. The model context receives a
 * batch's results together once the batch is over, so hooks of later calls
 * see the context as it was when the batch started (as in pi).
 */
export async function recordResult(run: LoopRun, finished: FinishedCall, results: ToolResultMessage[]): Promise<void> {
  const message = toolResultMessage(finished.toolCall, finished.result, finished.isError);
  run.newMessages.push(message);
  await run.emitWholeMessage(message);
  results.push(message);
}
