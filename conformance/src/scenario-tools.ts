import type {
  AgentTool,
  AgentToolResult,
  AgentToolUpdateCallback,
  ToolExecutionMode,
} from "@mariozechner/pi-agent-core";
import { type TSchema, Type } from "@mariozechner/pi-ai";
import { createGate, type Gate } from "./gate.js";

/** A tool result with one text block and plain details. */
export function textResult(
  text: string,
  options: { terminate?: boolean; details?: unknown } = {},
): AgentToolResult<unknown> {
  const result: AgentToolResult<unknown> = { content: [{ type: "text", text }], details: options.details ?? { text } };
  if (options.terminate !== undefined) result.terminate = options.terminate;
  return result;
}

/** What {@link defineTool} needs; everything but `name` and `execute` has a default. */
export interface ToolDefinition {
  name: string;
  /** Default: an object with one optional string `text`, as a pi-ai `Type` schema. */
  parameters?: TSchema;
  executionMode?: ToolExecutionMode;
  prepareArguments?: (args: unknown) => any;
  execute: (
    toolCallId: string,
    params: any,
    signal?: AbortSignal,
    onUpdate?: AgentToolUpdateCallback,
  ) => Promise<AgentToolResult<unknown>>;
}

/** An `AgentTool` with a label and description derived from its name. */
export function defineTool(definition: ToolDefinition): AgentTool<any> {
  const tool: AgentTool<any> = {
    name: definition.name,
    label: definition.name,
    description: `The ${definition.name} tool of a conformance scenario`,
    parameters: definition.parameters ?? Type.Object({ text: Type.Optional(Type.String()) }),
    execute: definition.execute,
  };
  if (definition.executionMode) tool.executionMode = definition.executionMode;
  if (definition.prepareArguments) tool.prepareArguments = definition.prepareArguments;
  return tool;
}

/** `echo({text})` answers `echo: <text>`. */
export function echoTool(name = "echo"): AgentTool<any> {
  return defineTool({
    name,
    execute: async (_id, params: { text?: string }) => textResult(`${name}: ${params.text ?? ""}`),
  });
}

/** A tool whose `execute` throws `message`. */
export function throwingTool(name: string, message: string): AgentTool<any> {
  return defineTool({
    name,
    execute: async () => {
      throw new Error(message);
    },
  });
}

/** A tool that holds its `execute` until the scenario releases it. */
export interface GatedTool {
  tool: AgentTool<any>;
  /** Resolves once `execute` has been called. */
  started: Promise<void>;
  /** Lets `execute` return `text` (optionally with `terminate`). */
  release(text: string, options?: { terminate?: boolean }): void;
}

/** A {@link GatedTool}: `execute` waits for `release`, so completion order is the scenario's choice. */
export function gatedTool(name: string, options: { executionMode?: ToolExecutionMode } = {}): GatedTool {
  const started: Gate = createGate();
  const released: Gate<AgentToolResult<unknown>> = createGate();
  const tool = defineTool({
    name,
    executionMode: options.executionMode,
    execute: async () => {
      started.open();
      return released.promise;
    },
  });
  return {
    tool,
    started: started.promise,
    release: (text, resultOptions = {}) => released.open(textResult(text, resultOptions)),
  };
}
