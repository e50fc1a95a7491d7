import { Type } from "@sinclair/typebox";
import type { ToolExecutionMode } from "@turnkit/agent-loop";
import { assertFunctionArgument, assertObjectArgument, assertStringArgument } from "@turnkit/agent-loop/internal";
import { defineRuntimeTool } from "../tools/define-runtime-tool.js";
import type { RuntimeTool, RuntimeToolResult, ToolExecutionContext } from "../tools/runtime-tool.js";

/** One call a {@link RecordingTool} received. */
export interface RecordedToolCall {
  /** The execution context the runner passed (turn, call and message ids). */
  ctx: ToolExecutionContext;
  /** The validated arguments. */
  input: Record<string, unknown>;
}

/** A runtime tool that keeps every call it executes. */
export type RecordingTool = RuntimeTool & {
  /** Every executed call, in start order (the array grows). Blocked or invalid calls never execute, so never appear. */
  readonly calls: RecordedToolCall[];
};

/** Options of {@link createRecordingTool}. */
export interface RecordingToolOptions {
  /** How the tool's calls run in a batch. Default: the runtime tool default (`sequential`). */
  executionMode?: ToolExecutionMode;
  /**
   * Answers a call. Default: one text block `<name>:<input.value>`. A throw
   * (or rejection) becomes the call's error result, as for any tool.
   */
  answer?: (
    input: Record<string, unknown>,
    signal: AbortSignal,
    ctx: ToolExecutionContext,
  ) => RuntimeToolResult | Promise<RuntimeToolResult>;
}

/**
 * Creates a runtime tool named `name` with one optional string argument
 * `value`, which records each call before answering it. For scenarios that
 * assert which calls ran, with which arguments and context, and in what
 * order. Throws a `TypeError` naming the argument when `name` is no string,
 * or `options` (when given) is no object or has an `answer` that is no
 * function; throws like `defineRuntimeTool` for an invalid `name` or
 * `executionMode`.
 */
export function createRecordingTool(name: string, options: RecordingToolOptions = {}): RecordingTool {
  assertStringArgument(name, "createRecordingTool", "name");
  assertObjectArgument(options, "createRecordingTool", "options");
  if (options.answer !== undefined) assertFunctionArgument(options.answer, "createRecordingTool", "options.answer");
  const calls: RecordedToolCall[] = [];
  const tool = defineRuntimeTool({
    name,
    description: `Test tool ${name}`,
    parameters: Type.Object({ value: Type.Optional(Type.String()) }),
    ...(options.executionMode && { executionMode: options.executionMode }),
    execute: async (ctx, input, signal) => {
      calls.push({ ctx, input: input as Record<string, unknown> });
      if (options.answer) return options.answer(input as Record<string, unknown>, signal, ctx);
      return { content: [{ type: "text", text: `${name}:${(input as { value?: string }).value ?? ""}` }] };
    },
  });
  return Object.assign(tool, { calls });
}
