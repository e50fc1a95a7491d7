import type { RuntimeTool } from "@turnkit/agent-core";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { McpToolSummary } from "./mcp-status.js";
import { type BoundMcpTool, type McpToolCaller, type McpToolNaming, bindMcpTool } from "./mcp-tool.js";
import { type OutputCheck, compileOutputChecks } from "./output-schema.js";
import type { ReadTools, UnreadableTool } from "./tool-entries.js";
import { exposedToolNames } from "./tool-names.js";

/**
 * The server's latest tool list, bound for turns: the runtime tools, their
 * summaries and hints, and their output-schema checks. Kept while the
 * server is down (the tools stay listed; their calls fail).
 */
export class ToolCatalog {
  private bound: readonly BoundMcpTool[] = [];
  private checks: ReadonlyMap<string, OutputCheck> = new Map();
  /** The entries of the latest list that were left out, and why. */
  unreadable: readonly UnreadableTool[] = [];

  constructor(
    private readonly naming: McpToolNaming,
    private readonly call: McpToolCaller,
  ) {}

  /**
   * Replaces the list with `tools` from `tools/list` (and the entries left
   * out, `unreadable`). A name the server
   * listed twice is its first entry only: calls name a tool, so a second
   * entry could never be called.
   */
  bind({ tools, unreadable }: ReadTools): void {
    this.unreadable = unreadable;
    const byName = new Map<string, Tool>();
    for (const tool of tools) if (!byName.has(tool.name)) byName.set(tool.name, tool);
    const unique = [...byName.values()];
    const names = exposedToolNames(
      unique.map((tool) => tool.name),
      this.naming,
    );
    this.bound = unique.map((tool, index) => bindMcpTool(tool, names[index]!, this.naming.serverId, this.call));
    this.checks = compileOutputChecks(unique);
  }

  /** The runtime tools, in the server's order. */
  get tools(): RuntimeTool[] {
    return this.bound.map((entry) => entry.tool);
  }

  /** The summaries for the status, frozen. */
  get summaries(): readonly McpToolSummary[] {
    return Object.freeze(this.bound.map((entry) => entry.summary));
  }

  /** The output-schema check of the server's tool `serverToolName`, if it has an output schema. */
  outputCheck(serverToolName: string): OutputCheck | undefined {
    return this.checks.get(serverToolName);
  }
}
