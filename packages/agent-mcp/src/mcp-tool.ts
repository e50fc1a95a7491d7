import {
  type RuntimeTool,
  type RuntimeToolResult,
  type RuntimeToolUpdateCallback,
  type ToolExecutionContext,
  defineRuntimeTool,
} from "@turnkit/agent-core";
import type { ToolSchema } from "@turnkit/agent-loop";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpToolDetails } from "./call-result.js";
import type { McpToolHints, McpToolSummary } from "./mcp-status.js";

/** One call of a server's tool, as the loop makes it. */
export interface McpToolCallRequest {
  /** Who calls: the session, turn and tool call. */
  readonly ctx: ToolExecutionContext;
  /** The server's name of the tool. */
  readonly name: string;
  readonly args: Record<string, unknown>;
  /** Fires when the turn is aborted. */
  readonly signal: AbortSignal;
  readonly onUpdate: RuntimeToolUpdateCallback<McpToolDetails>;
}

/** Runs one call of a server's tool (see `toolCaller`). */
export type McpToolCaller = (call: McpToolCallRequest) => Promise<RuntimeToolResult<McpToolDetails>>;

/** A tool of the server, bound for turns, with its summary for the status. */
export interface BoundMcpTool {
  readonly tool: RuntimeTool;
  readonly summary: McpToolSummary;
}

/** How the extension names and describes the server's tools. */
export interface McpToolNaming {
  readonly serverId: string;
  readonly toolPrefix: string;
  readonly toolNames: Readonly<Record<string, string>>;
}

/**
 * Turns one entry of `tools/list` into a `RuntimeTool` the model knows as
 * `name` (see `exposedToolNames`), of the server `serverId`: the server's
 * `inputSchema` is the `parameters` object as received (validated by the
 * loop as plain JSON Schema, never converted), `readOnlyHint: true` makes it
 * `parallel`, anything else `sequential`. A tool without a description gets
 * one naming the server. Its annotations become {@link McpToolHints} in the
 * summary. Calls go through `call`.
 */
export function bindMcpTool(tool: Tool, name: string, serverId: string, call: McpToolCaller): BoundMcpTool {
  const description = tool.description?.trim() || `Tool "${tool.name}" of the MCP server "${serverId}".`;
  const executionMode = tool.annotations?.readOnlyHint === true ? "parallel" : "sequential";
  const label = tool.title ?? tool.annotations?.title;
  const runtimeTool = defineRuntimeTool({
    name,
    ...(label !== undefined && { label }),
    description,
    parameters: tool.inputSchema as ToolSchema,
    executionMode,
    execute: (ctx, input, signal, onUpdate) =>
      call({
        ctx,
        name: tool.name,
        args: input as Record<string, unknown>,
        signal,
        onUpdate: onUpdate as RuntimeToolUpdateCallback<McpToolDetails>,
      }),
  });
  return {
    tool: runtimeTool as RuntimeTool,
    summary: Object.freeze({ name, serverToolName: tool.name, description, executionMode, hints: toolHints(tool) }),
  };
}

/**
 * The tool's behaviour hints with the protocol's defaults filled in: not
 * read-only, destructive, not idempotent, open-world. The destructive and
 * idempotent hints only mean something for a tool that writes; a read-only
 * tool is neither destructive nor anything but idempotent.
 */
export function toolHints(tool: Tool): McpToolHints {
  const annotations = tool.annotations ?? {};
  const readOnly = annotations.readOnlyHint === true;
  return Object.freeze({
    readOnly,
    destructive: !readOnly && annotations.destructiveHint !== false,
    idempotent: readOnly || annotations.idempotentHint === true,
    openWorld: annotations.openWorldHint !== false,
  });
}
