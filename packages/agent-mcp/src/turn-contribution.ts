import type { RuntimeTool } from "@turnkit/agent-core";
import type { TurnContext, TurnWarning } from "@turnkit/agent-runtime";
import type { McpToolHints, McpToolSummary } from "./mcp-status.js";
import type { ServerSupervisor } from "./server-supervisor.js";

/**
 * The extension's part of each turn: its tools, and a warning when the
 * turn runs without them. Both come from one preparation per assembly
 * (connect, restart or refresh), keyed by the assembly's frozen `ctx`,
 * which the runtime gives every contribution of one assembly.
 */
export class TurnContribution {
  private readonly prepared = new WeakMap<TurnContext, Promise<void>>();
  /** The tools each turn got from this server, as summaries: the list may change while the turn runs. */
  private readonly contributed = new WeakMap<TurnContext, readonly McpToolSummary[]>();

  constructor(private readonly supervisor: ServerSupervisor) {}

  /**
   * The tools for the turn `ctx`, also when the server is down (their calls
   * are answered with errors). Rejects only after dispose, with
   * `server_unavailable`: a disposed runtime assembles no turn that needs
   * this server.
   */
  async tools(ctx: TurnContext): Promise<RuntimeTool[]> {
    if (this.supervisor.status.state === "disposed") throw this.supervisor.unavailable();
    await this.prepare(ctx);
    this.contributed.set(ctx, this.supervisor.catalog.summaries);
    return this.supervisor.catalog.tools;
  }

  /**
   * The hints of this server's tool `toolName` as the turn `ctx` got it
   * (without `ctx`, or for a turn it did not contribute to, the current
   * list's), provided `kept` (the names of this server's tools the turn
   * kept after name clashes; `undefined` when not known) holds the name;
   * `undefined` when the name is another extension's tool.
   */
  hints(toolName: string, kept: ReadonlySet<string> | undefined, ctx?: TurnContext): McpToolHints | undefined {
    if (kept !== undefined && !kept.has(toolName)) return undefined;
    const summaries = (ctx && this.contributed.get(ctx)) ?? this.supervisor.catalog.summaries;
    return summaries.find((summary) => summary.name === toolName)?.hints;
  }

  /**
   * What the turn `ctx` runs without: when the server is ready, the entries
   * of its tool list that are no tool a client can offer (left out, each
   * with why), if any; else why it is down, with its listed tools (whose
   * calls fail) or none (it never listed any).
   */
  async warning(ctx: TurnContext): Promise<TurnWarning | undefined> {
    if (this.supervisor.status.state === "disposed") return undefined;
    await this.prepare(ctx);
    const { state, tools, lastError } = this.supervisor.status;
    if (state !== "failed" && state !== "gave_up") return this.unreadableTools();
    if (tools.length === 0) {
      const why = lastError?.message ?? this.supervisor.unavailable().message;
      return { message: `${why}; the turn runs without its tools` };
    }
    const message = `${this.supervisor.unavailable().message}; calls to its ${tools.length} tools fail this turn`;
    return { message, tools: tools.map((tool) => tool.name) };
  }

  private unreadableTools(): TurnWarning | undefined {
    const { unreadable } = this.supervisor.catalog;
    if (unreadable.length === 0) return undefined;
    const list = unreadable.map((entry) => `${JSON.stringify(entry.name)} (${entry.problem})`).join(", ");
    const server = JSON.stringify(this.supervisor.status.id);
    return { message: `MCP server ${server} listed tools no client can offer; they are left out: ${list}` };
  }

  private prepare(ctx: TurnContext): Promise<void> {
    let prepared = this.prepared.get(ctx);
    if (prepared === undefined) {
      prepared = this.supervisor.prepareForTurn();
      this.prepared.set(ctx, prepared);
    }
    return prepared;
  }
}
