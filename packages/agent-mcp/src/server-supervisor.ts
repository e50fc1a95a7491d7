// Why this file is long: it is the one state machine of a server (connect, restart, refresh, a forgotten session, dispose), whose transitions read best side by side.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ExtensionConfigError, ExtensionConfigErrorCode } from "@turnkit/agent-runtime";
import { type CallTracking, toolCaller } from "./call-tool.js";
import { losesConnection, lostByStreamRefusal } from "./classify-mcp-failure.js";
import { sessionForgotten } from "./forgotten-session.js";
import type { ClientFeatures } from "./client-features.js";
import { STDERR_TAIL_CHARS } from "./defaults.js";
import { listTools } from "./server-lists.js";
import { type ConnectionEvents, McpConnection } from "./mcp-connection.js";
import { McpServerError, McpServerErrorCode } from "./mcp-server-error.js";
import type { McpServerState, McpServerStatus } from "./mcp-status.js";
import { OutdatedLists } from "./outdated-lists.js";
import { RestartSchedule } from "./restart-schedule.js";
import { StatusListeners } from "./status-listeners.js";
import { StderrTail } from "./stderr-tail.js";
import { ToolCatalog } from "./tool-catalog.js";
import { unavailableError } from "./unavailable-error.js";
import type { McpSettings } from "./validate-mcp-options.js";

/** What the rest of the extension adds to each session, and hears from it. */
export interface SessionHooks extends ClientFeatures {
  /** A connection became ready (the first, or after a restart): per-session state (subscriptions) is made again. */
  onConnected?(connection: McpConnection): void;
  /** The server says the resource `uri` changed. */
  onResourceUpdated?(uri: string): void;
  /** The tool calls in flight, for sampling and elicitation, which say when the server waits for the host. */
  calls?: CallTracking;
}

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
  /** The latest tool list (kept while the server is down: the tools stay listed, their calls fail). */
  readonly catalog: ToolCatalog;
  /** Lists the server announced a change of since they were last fetched. */
  readonly outdated = new OutdatedLists(() => this.emit());
  private schedule: RestartSchedule;
  private lastError: McpServerError | undefined;
  private serverInfo: McpServerStatus["serverInfo"];
  private attached = false;
  private disposal = new AbortController();
  /** Connections being closed (a lost stdio server may take the shutdown grace to go); dispose waits for them. */
  private readonly retiring = new Set<Promise<void>>();
  private readonly listeners: StatusListeners;
  private readonly events: ConnectionEvents = {
    onListChanged: (connection, kind) => {
      if (connection === this.connection) this.outdated.set(kind, true);
    },
    onResourceUpdated: (connection, uri) => {
      if (connection === this.connection) this.features.onResourceUpdated?.(uri);
    },
    onLost: (connection, reason) => this.lose(connection, reason),
  };

  constructor(
    private readonly settings: McpSettings,
    private readonly features: SessionHooks,
  ) {
    this.schedule = new RestartSchedule(settings.restart, settings.clock);
    this.listeners = new StatusListeners(settings.onStatus);
    const { id: serverId, toolPrefix, toolNames } = settings;
    this.catalog = new ToolCatalog(
      { serverId, toolPrefix, toolNames },
      toolCaller(
        {
          useConnection: (operation) => this.useConnection(operation),
          outputCheck: (name) => this.catalog.outputCheck(name),
          calls: features.calls,
        },
        settings,
      ),
    );
  }

  /** The SDK client of the current session while the server is ready; `undefined` otherwise. */
  get client(): Client | undefined {
    return this.state === "ready" ? this.connection?.client : undefined;
  }

  /** A fresh frozen snapshot. */
  get status(): McpServerStatus {
    return Object.freeze({
      id: this.settings.id,
      transport: this.settings.transport.kind,
      state: this.state,
      tools: this.catalog.summaries,
      toolsOutdated: this.outdated.has("tools"),
      resourcesOutdated: this.outdated.has("resources"),
      promptsOutdated: this.outdated.has("prompts"),
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

  /**
   * Readies the server for a turn: connects, restarts it when the restart
   * policy allows, or refreshes its tool list, as needed. Never rejects.
   */
  prepareForTurn(): Promise<void> {
    return this.prepare(this.onlySessionLost() ? "new_session" : "turn");
  }

  /** Lost because the server refused to reopen the session's event stream: it is up, only the session is gone. */
  private onlySessionLost(): boolean {
    return this.state === "failed" && this.lastError !== undefined && lostByStreamRefusal(this.lastError);
  }

  /**
   * Connects now instead of at the first turn, or restarts a failed server
   * at once (without the policy's wait; from `gave_up` the count starts
   * over). Resolves to the status once ready; rejects with the
   * {@link McpServerError} that kept it from being ready.
   */
  async connect(): Promise<McpServerStatus> {
    if (this.state !== "disposed") await this.prepare("explicit");
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

  /**
   * Runs `operation` on the ready connection, once a connection being made
   * is; with `connectIfIdle`, a server not connected yet is connected first
   * (as `connect()` does). A failure that loses the connection loses it (a
   * later turn restarts it); any other is recorded as `lastError`. A
   * request the server refused because it forgot the session (see
   * {@link sessionForgotten}) starts a new session at once and runs
   * `operation` again, once. Rejects with `server_unavailable` when the
   * server is not ready, with the operation's {@link McpServerError}, or
   * with a signal's reason.
   */
  async useConnection<T>(operation: (connection: McpConnection) => Promise<T>, connectIfIdle = false): Promise<T> {
    if (this.state === "connecting" || (connectIfIdle && this.state === "idle")) await this.prepare("explicit");
    if (this.onlySessionLost()) await this.prepare("new_session");
    const connection = this.connection;
    try {
      return await this.runOnConnection(operation);
    } catch (error) {
      // The server forgot the session and never ran the request: a new session, then the request again.
      if (!McpServerError.isInstance(error) || connection === undefined || this.state === "gave_up") throw error;
      // Still current unless lost meanwhile, by this failure (a 404) or by another request's.
      const live = connection === this.connection ? connection : undefined;
      if (!(await sessionForgotten(error, live, this.settings.connectTimeoutMs, this.disposal.signal))) throw error;
      this.lose(connection, error);
      await this.prepare("new_session");
      return this.runOnConnection(operation);
    }
  }

  private async runOnConnection<T>(operation: (connection: McpConnection) => Promise<T>): Promise<T> {
    const connection = this.connection;
    if (connection === undefined || this.state !== "ready") throw this.unavailable();
    try {
      return await operation(connection);
    } catch (error) {
      if (!McpServerError.isInstance(error)) throw error;
      if (this.isDisposed()) throw this.unavailable();
      if (losesConnection(error)) this.lose(connection, error);
      else if (error !== connection.lostReason) this.record(error);
      throw error;
    }
  }

  /** One preparation at a time: for a turn (restart policy), `connect()`, or a forgotten session (no restart). */
  private prepare(reason: "turn" | "explicit" | "new_session"): Promise<void> {
    this.preparing ??= this.prepareOnce(reason).finally(() => {
      this.preparing = undefined;
    });
    return this.preparing;
  }

  private async prepareOnce(reason: "turn" | "explicit" | "new_session"): Promise<void> {
    switch (this.state) {
      case "idle":
        return this.open();
      case "gave_up":
        if (reason !== "explicit") return;
        this.schedule.startOver();
        this.schedule.begin();
        return this.open();
      case "failed":
        if (reason === "turn" && this.schedule.dueInMs() > 0) return;
        if (reason !== "new_session") this.schedule.begin();
        return this.open();
      case "ready":
        if (this.schedule.forgiveIfHealthy()) this.emit();
        if (this.outdated.has("tools") && this.connection) await this.refreshTools(this.connection);
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
      connection = await McpConnection.open(
        this.settings,
        this.events,
        this.disposal.signal,
        this.stderr,
        this.features,
      );
      if (this.isDisposed()) return this.retire(connection);
      this.connection = connection;
      this.serverInfo = connection.serverInfo;
      this.outdated.set("tools", false);
      this.catalog.bind(await listTools(connection, this.settings.connectTimeoutMs, this.disposal.signal));
      if (this.isDisposed() || this.connection !== connection) return;
      this.schedule.connected();
      this.setState("ready");
      this.features.onConnected?.(connection);
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
    this.outdated.set("tools", false);
    try {
      const tools = await listTools(connection, this.settings.connectTimeoutMs, this.disposal.signal);
      if (connection === this.connection) this.catalog.bind(tools);
      this.emit();
    } catch (error) {
      if (connection !== this.connection || !McpServerError.isInstance(error)) return;
      this.outdated.set("tools", true);
      if (losesConnection(error)) this.lose(connection, error);
      else this.record(error);
    }
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
