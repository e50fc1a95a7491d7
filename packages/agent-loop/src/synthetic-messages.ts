import type { AssistantMessage, Model, ToolResultMessage, Usage } from "@mariozechner/pi-ai";
import type { AgentToolCall, AgentToolResult } from "./types.js";

/** A usage record of zeros; a fresh object each call, safe to mutate. */
export function emptyUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** The `errorMessage` of an aborted response, as pi-ai's providers write it. */
export const ABORTED_ERROR_MESSAGE = "Request was aborted";

/** Readable text of anything thrown. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/**
 * Text of a tool error result for anything a tool or tool hook threw: the
 * message of an `Error`, else `String(value)` (as pi-agent-core writes it).
 */
export function thrownText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The assistant message the loop records when a request could not produce
 * one (SPEC L9): `stopReason` `"aborted"` when the run's signal fired, else
 * `"error"`, with `errorMessage`. Keeps whatever content had streamed.
 */
export function failedAssistantMessage(
  model: Model<any>,
  error: unknown,
  aborted: boolean,
  partial?: AssistantMessage,
): AssistantMessage {
  return {
    role: "assistant",
    content: partial ? partial.content : [],
    // `model?.`: a run misconfigured without a model must still end (L9), not throw here.
    api: partial?.api ?? model?.api ?? "unknown",
    provider: partial?.provider ?? model?.provider ?? "unknown",
    model: partial?.model ?? model?.id ?? "unknown",
    usage: partial?.usage ?? emptyUsage(),
    stopReason: aborted ? "aborted" : "error",
    errorMessage: aborted ? ABORTED_ERROR_MESSAGE : errorText(error),
    timestamp: partial?.timestamp ?? Date.now(),
  };
}

/** An error tool result with one text block and empty `details` (`{}`, as pi writes it). */
export function errorToolResult(text: string): AgentToolResult<Record<string, never>> {
  return { content: [{ type: "text", text }], details: {} };
}

/** The tool-result message recorded for one finished call. */
export function toolResultMessage(toolCall: AgentToolCall, result: AgentToolResult<unknown>, isError: boolean): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: toolCall.id,
    toolName: toolCall.name,
    content: result.content,
    details: result.details,
    isError,
    timestamp: Date.now(),
  };
}

/** Texts of the error results the loop writes itself, so hosts and tests can match them. */
export const ToolResultText = {
  /** A call naming no tool of `context.tools`; `name` is the name the model called. The call never executes. */
  notFound: (name: string) => `Tool ${name} not found`,
  /** A call `beforeToolCall` blocked without giving a `reason`. */
  blocked: "Tool execution was blocked",
  /** Each call of a response cut off at the output token limit (SPEC L11); none of them executes. */
  truncated:
    "Tool call was not executed: the response was cut off at the output token limit (stopReason \"length\"), so its arguments may be incomplete.",
  /**
   * A call skipped because the run's signal fired, or whose tool had not
   * settled when the abort grace ran out (its late result is discarded).
   */
  aborted: "Tool call was not executed: the run was aborted.",
  /** A call of a sequential batch skipped because a hook returned `terminateAgent` for an earlier call. */
  stoppedByHook: "Tool call was not executed: a hook stopped the agent.",
  /**
   * A call still unanswered when the run failed (SPEC L9, e.g. a listener
   * threw); `reason` is the failure's text. An aborted run uses `aborted`.
   */
  runFailed: (reason: string) => `Tool call was not executed: the run failed (${reason}).`,
} as const;
