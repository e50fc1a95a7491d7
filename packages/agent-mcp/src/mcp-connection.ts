import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  type CallToolResult,
  type Progress,
  type Tool,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
  classifyMcpFailure,
  describeMalformed,
  isBrokenStreamError,
  isMalformedMessageError,
} from "./classify-mcp-failure.js";
import { MCP_CLIENT_INFO, SESSION_END_TIMEOUT_MS } from "./defaults.js";
import { McpServerError, McpServerErrorCode } from "./mcp-server-error.js";
import { withScopedSignal } from "./scoped-signal.js";
import { type OpenedTransport, createTransport } from "./mcp-transport.js";
import type { StderrTail } from "./stderr-tail.js";
import type { McpSettings } from "./validate-mcp-options.js";

/** What a connection tells its owner. Called at most once each per event; never awaited. */
export interface ConnectionEvents {
  /** The server sent `notifications/tools/list_changed`. */
  onToolsChanged(connection: McpConnection): void;
  /** The connection ended without `close()`: the process exited, or the server broke the protocol. */
  onLost(connection: McpConnection, reason: McpServerError): void;
}

/** Options of one `tools/call`. */
export interface CallOptions {
  /** Cancels the call: the server gets `notifications/cancelled` and the promise rejects. */
  readonly signal: AbortSignal;
  /** Receives the server's progress notifications (each one also restarts the timeout). */
  readonly onProgress: (progress: Progress) => void;
}

/**
 * One live MCP client session: a spawned process or an HTTP session, the
 * handshake done. It never reconnects (the supervisor makes a new one) and
 * classifies every failure as an {@link McpServerError} naming the server.
 */
export class McpConnection {
  private closing = false;
  private lost: McpServerError | undefined;

  private constructor(
    private readonly settings: McpSettings,
    private readonly client: Client,
    private readonly opened: OpenedTransport,
    /** What a stdio server wrote to stderr lately. */
    readonly stderr: StderrTail,
  ) {}

  /**
   * Starts the transport and runs the handshake, within the connect timeout.
   * A stdio server's stderr goes to `stderr` from its first byte.
   * Rejects with `connect_failed` (the transport closed again) when the
   * process cannot start, exits, refuses, or does not answer in time, or
   * when `signal` fires.
   */
  static async open(
    settings: McpSettings,
    events: ConnectionEvents,
    signal: AbortSignal,
    stderr: StderrTail,
  ): Promise<McpConnection> {
    const opened = await createTransport(settings.transport, stderr);
    const client = new Client(MCP_CLIENT_INFO, { capabilities: {} });
    const connection = new McpConnection(settings, client, opened, stderr);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => events.onToolsChanged(connection));
    client.onclose = () => connection.ended(events);
    client.onerror = (error) => connection.transportError(error);
    try {
      await withScopedSignal(signal, (scoped) =>
        client.connect(opened.transport, { timeout: settings.connectTimeoutMs, signal: scoped }),
      );
    } catch (error) {
      await connection.close();
      throw connection.connectFailure(error, "initialize");
    }
    return connection;
  }

  /** The server's name and version from the handshake. */
  get serverInfo(): { name: string; version: string } | undefined {
    const info = this.client.getServerVersion();
    return info ? { name: info.name, version: info.version } : undefined;
  }

  /** Every tool of the server, following `nextCursor` pages. Rejects with a classified error. */
  async listTools(signal: AbortSignal): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    try {
      do {
        const params = cursor === undefined ? {} : { cursor };
        const page = await withScopedSignal(signal, (scoped) =>
          this.client.listTools(params, { timeout: this.settings.connectTimeoutMs, signal: scoped }),
        );
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
    } catch (error) {
      throw this.classify(error, "tools/list", this.settings.connectTimeoutMs);
    }
    return tools;
  }

  /** Calls one tool; rejects with a classified error (or the signal's reason after an abort). */
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult> {
    try {
      return await withScopedSignal(
        options.signal,
        async (signal) =>
          (await this.client.callTool({ name, arguments: args }, undefined, {
            signal,
            timeout: this.settings.callTimeoutMs,
            resetTimeoutOnProgress: true,
            onprogress: options.onProgress,
          })) as CallToolResult,
      );
    } catch (error) {
      if (options.signal.aborted) throw error;
      throw this.classify(error, `tools/call "${name}"`, this.settings.callTimeoutMs);
    }
  }

  /**
   * Ends the session: an HTTP session is deleted (bounded wait), then the
   * transport closes; a stdio process gets EOF, then SIGTERM and SIGKILL if
   * it lingers (the SDK's two-second steps). Calls in flight reject.
   * Idempotent; never rejects.
   */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await Promise.race([this.opened.endSession().catch(() => {}), delay(SESSION_END_TIMEOUT_MS)]);
    await this.client.close().catch(() => {});
  }

  private ended(events: ConnectionEvents): void {
    if (this.closing) return;
    this.closing = true;
    const stderr = this.stderr.lastLine;
    this.lost ??= new McpServerError({
      code: McpServerErrorCode.ServerExited,
      serverId: this.settings.id,
      message: stderr ? `exited (its last stderr line: ${stderr})` : "exited",
    });
    events.onLost(this, this.lost);
  }

  /**
   * Two transport errors break the connection, because the answers a call
   * waits for can no longer come and waiting would only end in a timeout: a
   * message that is not MCP (the reply it replaced can never be matched), and
   * an HTTP stream that broke mid-answer. The transport is closed; calls in
   * flight fail with the reason, and the supervisor reconnects for the next
   * turn. Other transport errors are the SDK's to handle.
   */
  private transportError(error: Error): void {
    if (this.closing) return;
    if (isMalformedMessageError(error)) {
      this.lost ??= new McpServerError({
        code: McpServerErrorCode.ProtocolError,
        serverId: this.settings.id,
        message: `wrote a message that is not JSON-RPC (${describeMalformed(error)}); the connection was closed`,
        cause: error,
      });
    } else if (this.settings.transport.kind === "http" && isBrokenStreamError(error)) {
      this.lost ??= new McpServerError({
        code: McpServerErrorCode.TransportError,
        serverId: this.settings.id,
        message: `lost its connection (${error.message})`,
        cause: error,
      });
    } else {
      return;
    }
    void this.opened.transport.close().catch(() => {});
  }

  private classify(error: unknown, request: string, timeoutMs: number): McpServerError {
    return classifyMcpFailure(error, { serverId: this.settings.id, request, timeoutMs, lost: this.lost });
  }

  private connectFailure(error: unknown, request: string): McpServerError {
    const { transport } = this.settings;
    let detail: string;
    if (transport.kind === "stdio" && isSpawnError(error)) {
      detail = `could not start ${JSON.stringify(transport.command)}: ${error.message}`;
    } else {
      const failure = this.classify(error, request, this.settings.connectTimeoutMs);
      const prefix = `MCP server "${this.settings.id}" `;
      detail = failure.message.startsWith(prefix) ? failure.message.slice(prefix.length) : failure.message;
    }
    const stderr = this.stderr.lastLine;
    const hint = stderr && !detail.includes(stderr) ? ` (its last stderr line: ${stderr})` : "";
    return new McpServerError({
      code: McpServerErrorCode.ConnectFailed,
      serverId: this.settings.id,
      message: `could not connect: ${detail}${hint}`,
      cause: error,
    });
  }
}

/** Node's error for a command that could not be spawned (`ENOENT`, `EACCES`). */
function isSpawnError(error: unknown): error is Error {
  const syscall = error instanceof Error ? (error as { syscall?: unknown }).syscall : undefined;
  return typeof syscall === "string" && syscall.startsWith("spawn");
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
