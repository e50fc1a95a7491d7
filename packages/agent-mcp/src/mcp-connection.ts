// Why this file is long: it is one live session from handshake to close, and its failure paths (a broken line, a lost process, a forgotten HTTP session, a dropped event stream) share the state that decides which call gets which answer.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { type ClientFeatures, createClient } from "./client-features.js";
import {
  classifyMcpFailure,
  INITIALIZED_NOTIFICATION,
  isBrokenStreamError,
  isMalformedAnswer,
  isStreamRefusal,
  isUnansweredStream,
} from "./classify-mcp-failure.js";
import { SESSION_END_TIMEOUT_MS } from "./defaults.js";
import { McpServerError, McpServerErrorCode } from "./mcp-server-error.js";
import { connectFailure } from "./connect-failure.js";
import { probeUnansweredHandshake } from "./handshake-probe.js";
import { describeMalformed, isMalformedMessageError } from "./malformed-message.js";
import { type OpenedTransport, createTransport } from "./mcp-transport.js";
import { explainOldSseServer } from "./old-sse-transport.js";
import { isStdioMessageTooLarge } from "./message-size-limit.js";
import { withScopedSignal } from "./scoped-signal.js";
import type { StderrTail } from "./stderr-tail.js";
import { ProgressRoutes } from "./progress-routes.js";
import { ServerRequestCancels } from "./server-request-cancels.js";
import { stopProcess } from "./stop-process.js";
import { type StrayOutput, warnOfStrayOutput } from "./stray-output.js";
import type { McpSettings } from "./validate-mcp-options.js";

/** A list the server may announce changes of (`notifications/<kind>/list_changed`). */
export type ServerListKind = "tools" | "resources" | "prompts";

/** What a connection tells its owner. Called at most once each per event; never awaited. */
export interface ConnectionEvents {
  /** The server sent `notifications/<kind>/list_changed`. */
  onListChanged(connection: McpConnection, kind: ServerListKind): void;
  /** The server sent `notifications/resources/updated` for `uri`. */
  onResourceUpdated(connection: McpConnection, uri: string): void;
  /**
   * The connection is lost, without `close()`: the process exited, the
   * transport closed, the server broke the protocol or an HTTP stream broke.
   * Called once, at the moment it is known; requests in flight fail with
   * `reason`. The owner closes the connection.
   */
  onLost(connection: McpConnection, reason: McpServerError): void;
}

/**
 * One live MCP client session: a spawned process or an HTTP session, the
 * handshake done. It never reconnects (the supervisor makes a new one) and
 * classifies every failure as an {@link McpServerError} naming the server.
 */
export class McpConnection {
  private closed: Promise<void> | undefined;
  private lost: McpServerError | undefined;
  /** Why requests can no longer be answered, once they cannot: a protocol error, a broken stream, `close()`. */
  private breakReason: McpServerError | undefined;
  /** The requests in flight, each failed at once when the connection breaks (see {@link untilBroken}). */
  private readonly inFlight = new Set<(reason: McpServerError) => void>();
  /** The latest refusal to open the session's event stream, which a "Failed to reconnect" report that follows explains. */
  private streamRefusal: Error | undefined;
  /** The kinds of stray output of this stdio server the host was told of (each once per connection). */
  private readonly strayOutputReported = new Set<StrayOutput>();
  /** The progress tokens of the requests in flight: their progress is handed over as it is read (see {@link readUntilBroken}). */
  readonly progress = new ProgressRoutes();

  private constructor(
    private readonly settings: McpSettings,
    /** The SDK client of this session. */
    readonly client: Client,
    private readonly opened: OpenedTransport,
    private readonly events: ConnectionEvents,
    /** What a stdio server wrote to stderr lately. */
    readonly stderr: StderrTail,
  ) {}

  /**
   * Starts the transport and runs the handshake, within the connect timeout.
   * A stdio server's stderr goes to `stderr` from its first byte.
   * Rejects with `connect_failed` (the transport closed again) when the
   * process cannot start, exits, refuses, breaks the protocol or does not
   * answer in time, or when `signal` fires. Then asks for `logLevel`, when
   * set and the server supports logging (a refusal goes to the logger).
   */
  static async open(
    settings: McpSettings,
    events: ConnectionEvents,
    signal: AbortSignal,
    stderr: StderrTail,
    features: ClientFeatures,
    authorized = false,
  ): Promise<McpConnection> {
    // The transport reports a message too large, or stray output, for the connection it is about to belong to.
    let connection: McpConnection | undefined;
    const opened = await createTransport(settings.transport, stderr, {
      maxMessageBytes: settings.maxMessageBytes,
      onMessageTooLarge: () => connection?.messageTooLarge(),
      onStrayLine: (line, what, problem) => connection?.strayOutput(line, what, problem),
    });
    const cancels = new ServerRequestCancels();
    const client = createClient(settings, features, cancels);
    // Read before the SDK's client reads it (its connect keeps a handler set before it).
    opened.transport.onmessage = (message) => cancels.read(message);
    connection = new McpConnection(settings, client, opened, events, stderr);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => events.onListChanged(connection, "tools"));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () =>
      events.onListChanged(connection, "resources"),
    );
    client.setNotificationHandler(PromptListChangedNotificationSchema, () =>
      events.onListChanged(connection, "prompts"),
    );
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) =>
      events.onResourceUpdated(connection, notification.params.uri),
    );
    client.onclose = () => connection.transportClosed();
    client.onerror = (error) => connection.transportError(error);
    // A stdio server that closed its stdin while the handshake is unanswered is seen only at a write.
    const stopProbing = settings.transport.kind === "stdio" ? probeUnansweredHandshake(opened.transport) : () => {};
    try {
      await connection
        .request("initialize", settings.connectTimeoutMs, [signal], (scoped) =>
          client.connect(opened.transport, { timeout: settings.connectTimeoutMs, signal: scoped }).catch((error) => {
            // The SDK's connect sends initialize, then the initialized notification: once initialize is answered
            // (the server's version is known), what failed is the notification.
            if (client.getServerVersion() === undefined) throw error;
            throw classifyMcpFailure(error, {
              serverId: settings.id,
              request: INITIALIZED_NOTIFICATION,
              timeoutMs: settings.connectTimeoutMs,
              lost: connection.lost,
            });
          }),
        )
        .finally(stopProbing);
      connection.readUntilBroken();
      // Broken in the handshake (a malformed JSON-RPC message before the answer): the answer read after it is not trusted.
      if (connection.breakReason) throw connection.breakReason;
    } catch (error) {
      await connection.close();
      // An HTTP server that wants OAuth: the host authorizes once, and the connect is made again with the tokens.
      let authorizing = false;
      try {
        authorizing = !authorized && !signal.aborted && (await opened.authorize());
      } catch (authError) {
        throw connectFailure(
          settings,
          stderr,
          connection.lost,
          new Error(`authorization failed: ${authError instanceof Error ? authError.message : String(authError)}`, {
            cause: authError,
          }),
        );
      }
      if (authorizing) return McpConnection.open(settings, events, signal, stderr, features, true);
      const failure = connectFailure(settings, stderr, connection.lost, error);
      throw settings.transport.kind === "http"
        ? await explainOldSseServer(settings.transport, error, failure)
        : failure;
    }
    if (settings.logLevel !== undefined && client.getServerCapabilities()?.logging) {
      const level = settings.logLevel;
      await connection
        .request("logging/setLevel", settings.connectTimeoutMs, [signal], (scoped) =>
          client.setLoggingLevel(level, { timeout: settings.connectTimeoutMs, signal: scoped }),
        )
        .catch((error: unknown) => {
          try {
            settings.logger?.warn?.(`MCP server "${settings.id}" refused logging/setLevel ${level}`, { error });
          } catch {
            // The host's logger failing is not the server's problem.
          }
        });
    }
    return connection;
  }

  /** The extension id, which names the server in errors. */
  get serverId(): string {
    return this.settings.id;
  }

  /** The server's name and version from the handshake, and its instructions when it gave any. */
  get serverInfo(): { name: string; version: string; instructions?: string } | undefined {
    const info = this.client.getServerVersion();
    const instructions = this.client.getInstructions();
    return info ? { name: info.name, version: info.version, ...(instructions && { instructions }) } : undefined;
  }

  /** Why the connection was lost, once it was. */
  get lostReason(): McpServerError | undefined {
    return this.lost;
  }

  /**
   * Runs one request of the session: `run` gets a signal that fires when any
   * of `signals` does (and is dropped afterwards). The request fails at once
   * when the connection breaks. Rejects with the firing signal's reason when
   * one of `signals` fired, else with an {@link McpServerError} naming
   * `request` (`tools/call "search"`, `tools/list`) and `timeoutMs`.
   */
  async request<T>(
    request: string,
    timeoutMs: number,
    signals: readonly AbortSignal[],
    run: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    try {
      return await withScopedSignal(signals, (scoped) => this.untilBroken(run(scoped)));
    } catch (error) {
      const fired = signals.find((signal) => signal.aborted);
      if (fired) throw fired.reason;
      const failure = classifyMcpFailure(error, { serverId: this.settings.id, request, timeoutMs, lost: this.lost });
      if (request !== "ping" && isUnansweredStream(failure) && this.opened.transport.sessionId !== undefined)
        throw await this.unansweredInSession(failure, request, signals);
      throw failure;
    }
  }

  /**
   * A request of a session whose event stream ended without its answer:
   * the server broke the protocol, or went away (a server shutting down
   * ends its streams cleanly too). A `ping` on the session tells which:
   * answered (with a result, a JSON-RPC error, or an answer the schema
   * refuses), `failure` (a protocol error) stands; else the connection is lost at once, and every request
   * in flight fails with the reason. A signal's reason when one fired.
   */
  private async unansweredInSession(failure: McpServerError, request: string, signals: readonly AbortSignal[]) {
    const timeoutMs = this.settings.connectTimeoutMs;
    const ping = await this.request("ping", timeoutMs, signals, (scoped) =>
      this.client.ping({ signal: scoped, timeout: timeoutMs }),
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    // Answered at all (a result, a JSON-RPC error, or an answer the schema refused): the server is there.
    const answered =
      McpServerError.isInstance(ping) && (ping.code === McpServerErrorCode.ServerError || isMalformedAnswer(ping));
    if (ping === undefined || answered) return failure;
    if (!McpServerError.isInstance(ping) || this.lost) return this.lost ?? ping;
    const why = ping.message.slice(`MCP server "${this.settings.id}" `.length);
    const message = `lost its connection (its event stream ended without answering ${request}, and it then ${why})`;
    this.lose(
      new McpServerError({ code: McpServerErrorCode.TransportError, serverId: this.settings.id, message, cause: ping }),
    );
    return this.lost;
  }

  /**
   * `work`'s outcome, or a rejection with the reason as soon as the
   * connection breaks (at once when it has). A request that settled leaves
   * nothing behind: a connection that lives for many turns does not keep
   * every request it answered.
   */
  private untilBroken<T>(work: Promise<T>): Promise<T> {
    const reason = this.breakReason;
    if (reason) return Promise.race([work, Promise.reject(reason)]);
    return new Promise<T>((resolve, reject) => {
      this.inFlight.add(reject);
      work.then(
        (value) => {
          this.inFlight.delete(reject);
          resolve(value);
        },
        (error: unknown) => {
          this.inFlight.delete(reject);
          reject(error);
        },
      );
    });
  }

  /**
   * Requests in flight can no longer be answered: each fails with `reason`,
   * and so does every later one. An answer read before the break (in the
   * chunk that held the line that broke it) is its request's: the requests
   * fail once what was read settled (a macrotask later), and nothing read
   * after the break is delivered (see {@link readUntilBroken}).
   */
  private breakRequests(reason: McpServerError): void {
    this.breakReason ??= reason;
    const broken = this.breakReason;
    setImmediate(() => {
      for (const fail of this.inFlight) fail(broken);
      this.inFlight.clear();
    });
  }

  /**
   * From now on, a message the transport reads after the connection broke
   * is dropped: an answer that follows a malformed JSON-RPC message (which
   * may have been an answer) cannot be trusted to be its request's. A
   * progress notification for a request's token goes to its listener as it
   * is read, before the messages after it; a request is sent with its own
   * id as its progress token (see `ProgressRoutes`).
   */
  private readUntilBroken(): void {
    const { transport } = this.opened;
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (this.breakReason !== undefined || this.progress.deliver(message)) return;
      deliver?.(message, extra);
    };
    const send = transport.send.bind(transport);
    transport.send = (message, options) => send(this.progress.sending(message), options);
  }

  /**
   * Ends the session: requests in flight fail at once; an HTTP session is
   * deleted (bounded wait), then the transport closes; a stdio process gets
   * end-of-input, then `SIGTERM` and `SIGKILL` if it lingers
   * (`shutdownGraceMs` apart). Resolves once the process is gone.
   * Idempotent; never rejects.
   */
  close(): Promise<void> {
    this.closed ??= this.shutdown();
    return this.closed;
  }

  private async shutdown(): Promise<void> {
    this.breakRequests(
      this.lost ??
        new McpServerError({
          code: McpServerErrorCode.ServerExited,
          serverId: this.settings.id,
          message: "closed its connection",
        }),
    );
    await Promise.race([this.opened.endSession().catch(() => {}), delay(SESSION_END_TIMEOUT_MS)]);
    const pid = this.opened.pid();
    const closing = this.client.close().catch(() => {});
    if (pid === undefined) return closing;
    await stopProcess(pid, this.opened.exited, this.settings.shutdownGraceMs, this.opened.marker);
  }

  /**
   * The transport ended: the SDK fails the requests in flight with
   * "connection closed", which `lost` explains. A stdio server ends it by
   * exiting, or by closing its stdout or stdin while it lives on (it can
   * never answer again: the same loss, and its process is stopped).
   */
  private transportClosed(): void {
    if (this.closed) return;
    this.lose(
      new McpServerError({
        code: McpServerErrorCode.ServerExited,
        serverId: this.settings.id,
        message: this.howTransportEnded(),
      }),
    );
  }

  private howTransportEnded(): string {
    if (this.settings.transport.kind !== "stdio") return "closed the connection";
    const pipe = this.opened.closedPipe();
    const ended = pipe ? `closed its ${pipe} and kept running` : "exited";
    const stderr = this.stderr.lastLine;
    return stderr ? `${ended} (its last stderr line: ${stderr})` : ended;
  }

  /**
   * Three transport errors break the connection, because the answers a call
   * waits for can no longer be trusted or come: a malformed JSON-RPC message
   * (the reply it replaced can never be matched, and the stream may be out
   * of step; a stdio line that is no JSON-RPC at all is no error, see
   * {@link strayOutput}), a message longer than `maxMessageBytes` (dropped unread), and
   * an HTTP stream that broke mid-answer. The connection is
   * lost at once: requests in flight fail with the reason, and the owner
   * closes it and reconnects for the next turn; it does not wait for the
   * process to exit. Other transport errors are the SDK's to handle.
   */
  private transportError(error: Error): void {
    if (this.closed) return;
    if (isStdioMessageTooLarge(error)) {
      this.messageTooLarge();
    } else if (isMalformedMessageError(error)) {
      this.lose(
        new McpServerError({
          code: McpServerErrorCode.ProtocolError,
          serverId: this.settings.id,
          message: `wrote a malformed JSON-RPC message (${describeMalformed(error)}); the connection was closed`,
          cause: error,
        }),
      );
    } else if (this.settings.transport.kind === "http" && isStreamRefusal(error)) {
      // Reported before the "Failed to reconnect" it explains (or alone, for a stream the server does not offer).
      this.streamRefusal = error;
    } else if (this.settings.transport.kind === "http" && isBrokenStreamError(error)) {
      const refusal = this.streamRefusal;
      this.lose(
        new McpServerError({
          code: McpServerErrorCode.TransportError,
          serverId: this.settings.id,
          message: `lost its connection (${error.message})`,
          cause: refusal && error.message.endsWith(refusal.message) ? refusal : error,
        }),
      );
    }
  }

  /**
   * A stdio server wrote a line that is no message for this client (a
   * banner, a log line, an error with a null id): it was dropped, and the
   * session and its requests go on. The host's logger hears of the first
   * such line of each kind of the connection.
   */
  private strayOutput(line: string, what: StrayOutput, problem?: string): void {
    if (this.closed || this.strayOutputReported.has(what)) return;
    this.strayOutputReported.add(what);
    warnOfStrayOutput(this.settings, line, what, problem);
  }

  /** A message longer than `maxMessageBytes` was dropped unread, so the request it answered never will be. */
  private messageTooLarge(): void {
    if (this.closed) return;
    const limit = `maxMessageBytes (${this.settings.maxMessageBytes} bytes)`;
    const message = `sent a message longer than ${limit}; it was not read, and the connection was closed`;
    this.lose(new McpServerError({ code: McpServerErrorCode.MessageTooLarge, serverId: this.settings.id, message }));
  }

  private lose(reason: McpServerError): void {
    if (this.lost) return;
    this.lost = reason;
    if (reason.code !== McpServerErrorCode.ServerExited) this.breakRequests(reason);
    this.events.onLost(this, reason);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
