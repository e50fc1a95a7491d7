import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RuntimeTool, RuntimeToolResult, RuntimeToolUpdateCallback } from "@turnkit/agent-core";
import { ExtensionConfigError, ExtensionConfigErrorCode } from "@turnkit/agent-runtime";
import { type McpToolDetails, abortedResult, progressText, toRuntimeToolResult } from "./call-result.js";
import { callMcpTool } from "./call-tool.js";
import { STDERR_TAIL_CHARS } from "./defaults.js";
import { listAllTools } from "./list-tools.js";
import { type ConnectionEvents, McpConnection } from "./mcp-connection.js";
import { McpServerError, McpServerErrorCode } from "./mcp-server-error.js";
import type { McpServerState, McpServerStatus, McpToolHints, McpToolSummary } from "./mcp-status.js";
import { type BoundMcpTool, bindMcpTool } from "./mcp-tool.js";
import { type OutputCheck, compileOutputChecks } from "./output-schema.js";
import { RestartSchedule } from "./restart-schedule.js";
import type { NormalisedRoot } from "./roots.js";
import { StatusListeners } from "./status-listeners.js";
import { StderrTail } from "./stderr-tail.js";
import { unavailableError } from "./unavailable-error.js";
import type { McpSettings } from "./validate-mcp-options.js";

/**
 * Keeps one MCP server available to turns, across connections: connects
 * lazily, refreshes the tool list after `list_changed`, restarts a lost
 * server for a later turn (by the restart policy), answers every call (an
 * error result when the server fails it), reports its status, and closes
 * everything on dispose.
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
  private outputChecks: ReadonlyMap<string, OutputCheck> = new Map();
  private toolsOutdated = false;
  private schedule: RestartSchedule;
  private lastError: McpServerError | undefined;
  private roots: readonly NormalisedRoot[] | undefined;
  private serverInfo: McpServerStatus["serverInfo"];
  private attached = false;
  private disposal = new AbortController();
  /** Connections being closed (a lost stdio server may take the shutdown grace to go); dispose waits for them. */
  private readonly retiring = new Set<Promise<void>>();
  private readonly listeners: StatusListeners;
  private readonly events: ConnectionEvents = {
    onToolsChanged: (connection) => {
      if (connection !== this.connection) return;
      this.toolsOutdated = true;
      this.emit();
    },
    onLost: (connection, reason) => this.lose(connection, reason),
  };

  constructor(private readonly settings: McpSettings) {
    this.schedule = new RestartSchedule(settings.restart, settings.clock);
    this.listeners = new StatusListeners(settings.onStatus);
    this.roots = settings.roots;
  }

  /** The SDK client of the current session while the server is ready; `undefined` otherwise. */
  get client(): Client | undefined {
    return this.state === "ready" ? this.connection?.client : undefined;
  }

  /**
   * Replaces the roots and, when connected, tells the server
   * (`notifications/roots/list_changed`; a failure to send is ignored: the
   * server reads them at its next `roots/list`). Only for an extension
   * created with `roots`: the roots capability is declared in the handshake.
   */
  setRoots(roots: readonly NormalisedRoot[]): void {
    this.roots = roots;
    void this.client?.sendRootsListChanged().catch(() => {});
  }

  /** A fresh frozen snapshot. */
  get status(): McpServerStatus {
    return Object.freeze({
      id: this.settings.id,
      transport: this.settings.transport.kind,
      state: this.state,
      tools: Object.freeze(this.bound.map((entry) => entry.summary)) as readonly McpToolSummary[],
      toolsOutdated: this.toolsOutdated,
      restarts: this.schedule.restarts,
      maxRestarts: this.settings.restart.maxRestarts,
      totalRestarts: this.schedule.totalRestarts,
      nextRestartInMs: this.state === "failed" ? this.schedule.dueInMs() : undefined,
      serverInfo: this.serverInfo,
      lastError: this.lastError,
      stderrTail: this.stderr.value,
    });
  }

  /** Calls `listener` with every new status until the returned function is called. */
  subscribe(listener: (status: McpServerStatus) => void): () => void {
    return this.listeners.add(listener);
  }

  /** The hints of the tool the model knows as `toolName`, from the latest tool list; `undefined` for another tool. */
  toolHints(toolName: string): McpToolHints | undefined {
    return this.bound.find((entry) => entry.summary.name === toolName)?.summary.hints;
  }

  /**
   * Marks the supervisor as used by a runtime (its init). A disposed one
   * starts over (idle, no restarts used). Throws `ExtensionConfigError`
   * (`extension_init`) if another runtime holds it.
   */
  attach(): void {
    if (this.attached)
      throw new ExtensionConfigError(
        ExtensionConfigErrorCode.ExtensionInit,
        `the MCP extension "${this.settings.id}" already belongs to a runtime; create one extension per runtime`,
      );
    this.attached = true;
    if (this.state === "disposed") {
      this.disposal = new AbortController();
      this.schedule = new RestartSchedule(this.settings.restart, this.settings.clock);
      this.lastError = undefined;
      this.setState("idle");
    }
  }

  /** The latest tools (also while the server is down: their calls are answered with errors). */
  get tools(): RuntimeTool[] {
    return this.bound.map((entry) => entry.tool);
  }

  /**
   * Readies the server for a turn: connects, restarts it when the restart
   * policy allows, or refreshes its tool list, as needed. Never rejects.
   */
  prepareForTurn(): Promise<void> {
    return this.prepare(false);
  }

  /**
   * Connects now instead of at the first turn, or restarts a failed server
   * at once (without the policy's wait; from `gave_up` the count starts
   * over). Resolves to the status once ready; rejects with the
   * {@link McpServerError} that kept it from being ready.
   */
  async connect(): Promise<McpServerStatus> {
    if (this.state !== "disposed") await this.prepare(true);
    if (this.state !== "ready")
      throw this.state === "disposed" ? this.unavailable() : (this.lastError ?? this.unavailable());
    return this.status;
  }

  /**
   * Closes the connection (killing a stdio process that lingers, ending an
   * HTTP session) and cancels a connection being made. Calls in flight are
   * answered with `server_unavailable` errors. Resolves once every process
   * this extension started is gone. Idempotent; never rejects.
   */
  async dispose(): Promise<void> {
    this.attached = false;
    if (this.state === "disposed") return;
    this.setState("disposed");
    this.disposal.abort(this.unavailable());
    const connection = this.connection;
    this.connection = undefined;
    if (connection) this.retire(connection);
    await Promise.all([this.preparing?.catch(() => {})]);
    await Promise.all([...this.retiring]);
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
      const result = await callMcpTool(connection, this.settings, {
        name: serverToolName,
        args,
        signal,
        onProgress: (progress) =>
          onUpdate({ content: [{ type: "text", text: progressText(progress) }], details: { ...ref, progress } }),
        outputCheck: this.outputChecks.get(serverToolName),
      });
      return toRuntimeToolResult(result, ref);
    } catch (error) {
      // The SDK has sent notifications/cancelled; the call gets the loop's usual aborted result.
      if (signal.aborted) return abortedResult(ref);
      if (this.isDisposed()) throw this.unavailable();
      const failure = McpServerError.isInstance(error) ? error : this.unavailable();
      if (failure.code === McpServerErrorCode.ServerExited || failure.code === McpServerErrorCode.TransportError)
        this.lose(connection, failure);
      else if (failure !== connection.lostReason) this.record(failure);
      throw failure;
    }
  };

  private prepare(explicit: boolean): Promise<void> {
    this.preparing ??= this.prepareOnce(explicit).finally(() => {
      this.preparing = undefined;
    });
    return this.preparing;
  }

  private async prepareOnce(explicit: boolean): Promise<void> {
    switch (this.state) {
      case "idle":
        return this.open();
      case "gave_up":
        if (!explicit) return;
        this.schedule.startOver();
        this.schedule.begin();
        return this.open();
      case "failed":
        if (!explicit && this.schedule.dueInMs() > 0) return;
        this.schedule.begin();
        return this.open();
      case "ready":
        if (this.schedule.forgiveIfHealthy()) this.emit();
        if (this.toolsOutdated && this.connection) await this.refreshTools(this.connection);
        return;
      case "connecting":
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
      connection = await McpConnection.open(this.settings, this.events, this.disposal.signal, this.stderr, {
        roots: this.roots && (() => this.roots ?? []),
      });
      if (this.isDisposed()) return this.retire(connection);
      this.connection = connection;
      this.serverInfo = connection.serverInfo;
      this.toolsOutdated = false;
      this.bindTools(await listAllTools(connection, this.settings.connectTimeoutMs, this.disposal.signal));
      if (this.isDisposed() || this.connection !== connection) return;
      this.schedule.connected();
      this.setState("ready");
    } catch (error) {
      if (this.isDisposed()) return;
      // Lost while listing its tools: `lose` has dealt with it.
      if (connection !== undefined && connection.lostReason !== undefined && this.connection !== connection) return;
      this.connection = undefined;
      if (connection) this.retire(connection);
      this.failed(
        McpServerError.isInstance(error)
          ? error
          : new McpServerError({
              code: McpServerErrorCode.ConnectFailed,
              serverId: this.settings.id,
              message: `could not connect: ${String(error)}`,
              cause: error,
            }),
      );
    }
  }

  /** A failed refresh keeps the previous list and tries again next turn. */
  private async refreshTools(connection: McpConnection): Promise<void> {
    this.toolsOutdated = false;
    try {
      const tools = await listAllTools(connection, this.settings.connectTimeoutMs, this.disposal.signal);
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
    const naming = {
      serverId: this.settings.id,
      toolPrefix: this.settings.toolPrefix,
      toolNames: this.settings.toolNames,
    };
    this.bound = tools.map((tool) => bindMcpTool(tool, naming, this.callTool));
    this.outputChecks = compileOutputChecks(tools);
  }

  /** The current connection ended: close it, remember why; a later turn restarts it as the policy allows. */
  private lose(connection: McpConnection, reason: McpServerError): void {
    if (connection !== this.connection) return;
    this.connection = undefined;
    this.retire(connection);
    this.failed(reason);
  }

  /** The server is down for `reason`: `failed` while the restart policy allows another restart, else `gave_up`. */
  private failed(reason: McpServerError): void {
    this.lastError = reason;
    this.schedule.lost();
    this.setState(this.schedule.exhausted ? "gave_up" : "failed");
  }

  private retire(connection: McpConnection): void {
    const closing = connection.close().finally(() => this.retiring.delete(closing));
    this.retiring.add(closing);
  }

  private record(error: McpServerError): void {
    this.lastError = error;
    this.emit();
  }

  /** The `server_unavailable` error a call gets while the server is not ready: why, and when it comes back. */
  unavailable(): McpServerError {
    return unavailableError({
      serverId: this.settings.id,
      state: this.state,
      restarts: this.schedule.restarts,
      maxRestarts: this.settings.restart.maxRestarts,
      restartInMs: this.schedule.dueInMs(),
      lastError: this.lastError,
    });
  }

  private isDisposed(): boolean {
    return this.state === "disposed";
  }

  private setState(state: McpServerState): void {
    this.state = state;
    this.emit();
  }

  private emit(): void {
    this.listeners.emit(this.status);
  }
}
