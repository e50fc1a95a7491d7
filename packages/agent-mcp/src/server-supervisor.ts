import type { RuntimeTool, RuntimeToolResult, RuntimeToolUpdateCallback } from "@turnkit/agent-core";
import { ToolResultText } from "@turnkit/agent-loop";
import { type McpToolDetails, progressText, toRuntimeToolResult } from "./call-result.js";
import { STDERR_TAIL_CHARS } from "./defaults.js";
import { type ConnectionEvents, McpConnection } from "./mcp-connection.js";
import { McpServerError, McpServerErrorCode } from "./mcp-server-error.js";
import type { McpServerState, McpServerStatus, McpToolSummary } from "./mcp-status.js";
import { type BoundMcpTool, bindMcpTool } from "./mcp-tool.js";
import { StderrTail } from "./stderr-tail.js";
import type { McpSettings } from "./validate-mcp-options.js";

/**
 * Keeps one MCP server available to turns, across connections: connects
 * lazily, refreshes the tool list after `list_changed`, restarts a lost
 * server for the next turn (at most `maxRestarts` times), answers every call
 * (an error result when the server fails it), reports its status, and
 * closes everything on dispose.
 *
 * Preparation (connect, restart, refresh) happens only at turn assembly or
 * `connect()`, one at a time; during a turn the connection is only used.
 */
export class ServerSupervisor {
  private state: McpServerState = "idle";
  private connection: McpConnection | undefined;
  private stderr = new StderrTail(STDERR_TAIL_CHARS);
  private preparing: Promise<void> | undefined;
  private bound: readonly BoundMcpTool[] = [];
  private toolsOutdated = false;
  private restarts = 0;
  private lastError: McpServerError | undefined;
  private serverInfo: McpServerStatus["serverInfo"];
  private attached = false;
  private disposal = new AbortController();
  private readonly listeners = new Set<(status: McpServerStatus) => void>();
  private readonly events: ConnectionEvents = {
    onToolsChanged: (connection) => {
      if (connection !== this.connection) return;
      this.toolsOutdated = true;
      this.emit();
    },
    onLost: (connection, reason) => this.lose(connection, reason),
  };

  constructor(private readonly settings: McpSettings) {}

  /** A fresh frozen snapshot. */
  get status(): McpServerStatus {
    return Object.freeze({
      id: this.settings.id,
      transport: this.settings.transport.kind,
      state: this.state,
      tools: Object.freeze(this.bound.map((entry) => entry.summary)) as readonly McpToolSummary[],
      toolsOutdated: this.toolsOutdated,
      restarts: this.restarts,
      maxRestarts: this.settings.maxRestarts,
      serverInfo: this.serverInfo,
      lastError: this.lastError,
      stderrTail: this.stderr.value,
    });
  }

  /** Calls `listener` with every new status until the returned function is called. */
  subscribe(listener: (status: McpServerStatus) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /**
   * Marks the supervisor as used by a runtime (its init). A disposed one
   * starts over (idle, no restarts used). Throws if another runtime holds it.
   */
  attach(): void {
    if (this.attached)
      throw new Error(
        `the MCP extension "${this.settings.id}" already belongs to a runtime; create one extension per runtime`,
      );
    this.attached = true;
    if (this.state === "disposed") {
      this.disposal = new AbortController();
      this.restarts = 0;
      this.lastError = undefined;
      this.setState("idle");
    }
  }

  /**
   * The tools for one turn: connects (or restarts, or refreshes the list)
   * first when needed, then returns the latest tools, also when the server
   * is down (their calls are answered with errors). Rejects only after
   * dispose, with `server_unavailable`: a disposed runtime assembles no turn
   * that needs this server.
   */
  async toolsForTurn(): Promise<RuntimeTool[]> {
    if (this.state === "disposed") throw this.unavailable();
    await this.prepare();
    return this.bound.map((entry) => entry.tool);
  }

  /**
   * Connects now instead of at the first turn (or restarts a failed server,
   * counting as a restart). Resolves to the status once ready; rejects with
   * the {@link McpServerError} that kept it from being ready.
   */
  async connect(): Promise<McpServerStatus> {
    if (this.state !== "disposed") await this.prepare();
    if (this.state !== "ready")
      throw this.state === "disposed" ? this.unavailable() : (this.lastError ?? this.unavailable());
    return this.status;
  }

  /**
   * Closes the connection (killing a stdio process that lingers, ending an
   * HTTP session) and cancels a connection being made. Calls in flight are
   * answered with `server_unavailable` errors. Idempotent; never rejects.
   */
  async dispose(): Promise<void> {
    this.attached = false;
    if (this.state === "disposed") return;
    this.setState("disposed");
    this.disposal.abort(new Error("disposed"));
    const connection = this.connection;
    this.connection = undefined;
    await Promise.all([connection?.close(), this.preparing?.catch(() => {})]);
  }

  /** Runs one call on the current connection; see `bindMcpTool`. Rejects with an {@link McpServerError}. */
  readonly callTool = async (
    serverToolName: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    onUpdate: RuntimeToolUpdateCallback<McpToolDetails>,
  ): Promise<RuntimeToolResult<McpToolDetails>> => {
    const ref = { server: this.settings.id, tool: serverToolName };
    const connection = this.connection;
    if (connection === undefined || this.state !== "ready") throw this.unavailable();
    try {
      const result = await connection.callTool(serverToolName, args, {
        signal,
        onProgress: (progress) =>
          onUpdate({ content: [{ type: "text", text: progressText(progress) }], details: { ...ref, progress } }),
      });
      return toRuntimeToolResult(result, ref);
    } catch (error) {
      // The SDK has sent notifications/cancelled; the call gets the loop's usual aborted result.
      if (signal.aborted)
        return {
          content: [{ type: "text", text: ToolResultText.aborted }],
          details: { ...ref, cancelled: true },
          isError: true,
        };
      if (this.isDisposed()) throw this.unavailable();
      const failure = McpServerError.isInstance(error) ? error : this.unavailable();
      if (failure.code === McpServerErrorCode.ServerExited || failure.code === McpServerErrorCode.TransportError)
        this.lose(connection, failure);
      else this.record(failure);
      throw failure;
    }
  };

  private prepare(): Promise<void> {
    this.preparing ??= this.prepareOnce().finally(() => {
      this.preparing = undefined;
    });
    return this.preparing;
  }

  private async prepareOnce(): Promise<void> {
    switch (this.state) {
      case "idle":
        return this.open();
      case "failed":
        this.restarts += 1;
        return this.open();
      case "ready":
        if (this.toolsOutdated && this.connection) await this.refreshTools(this.connection);
        return;
      case "connecting":
      case "gave_up":
      case "disposed":
        return;
      default: {
        const unreachable: never = this.state;
        return unreachable;
      }
    }
  }

  private async open(): Promise<void> {
    this.setState("connecting");
    let connection: McpConnection | undefined;
    try {
      this.stderr = new StderrTail(STDERR_TAIL_CHARS);
      connection = await McpConnection.open(this.settings, this.events, this.disposal.signal, this.stderr);
      if (this.isDisposed()) return void (await connection.close());
      this.connection = connection;
      this.serverInfo = connection.serverInfo;
      this.toolsOutdated = false;
      this.bindTools(await connection.listTools(this.disposal.signal));
      if (this.isDisposed()) return;
      this.setState("ready");
    } catch (error) {
      if (this.isDisposed()) return;
      this.connection = undefined;
      await connection?.close();
      const failure = McpServerError.isInstance(error)
        ? error
        : new McpServerError({
            code: McpServerErrorCode.ConnectFailed,
            serverId: this.settings.id,
            message: `could not connect: ${String(error)}`,
            cause: error,
          });
      this.lastError = failure;
      this.setState(this.restarts < this.settings.maxRestarts ? "failed" : "gave_up");
    }
  }

  /** A failed refresh keeps the previous list and tries again next turn. */
  private async refreshTools(connection: McpConnection): Promise<void> {
    this.toolsOutdated = false;
    try {
      const tools = await connection.listTools(this.disposal.signal);
      if (connection === this.connection) this.bindTools(tools);
      this.emit();
    } catch (error) {
      if (connection !== this.connection || !McpServerError.isInstance(error)) return;
      this.toolsOutdated = true;
      if (error.code === McpServerErrorCode.ServerExited || error.code === McpServerErrorCode.TransportError)
        this.lose(connection, error);
      else this.record(error);
    }
  }

  private bindTools(tools: Parameters<typeof bindMcpTool>[0][]): void {
    this.bound = tools.map((tool) =>
      bindMcpTool(
        tool,
        { serverId: this.settings.id, toolPrefix: this.settings.toolPrefix, toolNames: this.settings.toolNames },
        this.callTool,
      ),
    );
  }

  /** The current connection ended: remember why; the next turn restarts it if the limit allows. */
  private lose(connection: McpConnection, reason: McpServerError): void {
    if (connection !== this.connection) return;
    this.connection = undefined;
    void connection.close();
    this.lastError = reason;
    this.setState(this.restarts < this.settings.maxRestarts ? "failed" : "gave_up");
  }

  private record(error: McpServerError): void {
    this.lastError = error;
    this.emit();
  }

  private unavailable(): McpServerError {
    const why = (): string => {
      switch (this.state) {
        case "disposed":
          return "is not available: the runtime was disposed";
        case "gave_up":
          return `is not running and will not be restarted (${this.restarts} of ${this.settings.maxRestarts} restarts used); it ${this.lastReason()}`;
        case "failed":
          return `is not running: it ${this.lastReason()}; it is restarted for the next turn`;
        case "idle":
        case "connecting":
        case "ready":
          return "is not connected";
        default: {
          const unreachable: never = this.state;
          return unreachable;
        }
      }
    };
    return new McpServerError({
      code: McpServerErrorCode.Unavailable,
      serverId: this.settings.id,
      message: why(),
      cause: this.lastError,
    });
  }

  /** The last error's message without the `MCP server "<id>"` it starts with. */
  private lastReason(): string {
    const message = this.lastError?.message ?? "lost its connection";
    const prefix = `MCP server "${this.settings.id}" `;
    return message.startsWith(prefix) ? message.slice(prefix.length) : message;
  }

  private isDisposed(): boolean {
    return this.state === "disposed";
  }

  private setState(state: McpServerState): void {
    this.state = state;
    this.emit();
  }

  private emit(): void {
    const status = this.status;
    for (const listener of [this.settings.onStatus, ...this.listeners]) {
      try {
        listener?.(status);
      } catch {
        // A listener's failure is its own; the server's lifecycle does not depend on it.
      }
    }
  }
}
