import type { RuntimeTool } from "@turnkit/agent-core";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpToolHints, McpToolSummary } from "./mcp-status.js";
import { type BoundMcpTool, type McpToolCaller, type McpToolNaming, bindMcpTool } from "./mcp-tool.js";
import { type OutputCheck, compileOutputChecks } from "./output-schema.js";

/**
 * The server's latest tool list, bound for turns: the runtime tools, their
 * summaries and hints, and their output-schema checks. Kept while the
 * server is down (the tools stay listed; their calls fail).
 */
export class ToolCatalog {
  private bound: readonly BoundMcpTool[] = [];
  private checks: ReadonlyMap<string, OutputCheck> = new Map();

  constructor(
    private readonly naming: McpToolNaming,
    private readonly call: McpToolCaller,
  ) {}

  /** Replaces the list with `tools` from `tools/list`. */
  bind(tools: readonly Tool[]): void {
    this.bound = tools.map((tool) => bindMcpTool(tool, this.naming, this.call));
    this.checks = compileOutputChecks(tools);
  }

  /** The runtime tools, in the server's order. */
  get tools(): RuntimeTool[] {
    return this.bound.map((entry) => entry.tool);
  }

  /** The summaries for the status, frozen. */
  get summaries(): readonly McpToolSummary[] {
    return Object.freeze(this.bound.map((entry) => entry.summary));
  }

  /** The hints of the tool the model knows as `toolName`; `undefined` for another tool. */
  hints(toolName: string): McpToolHints | undefined {
    return this.bound.find((entry) => entry.summary.name === toolName)?.summary.hints;
  }

  /** The output-schema check of the server's tool `serverToolName`, if it has an output schema. */
  outputCheck(serverToolName: string): OutputCheck | undefined {
    return this.checks.get(serverToolName);
  }
}
