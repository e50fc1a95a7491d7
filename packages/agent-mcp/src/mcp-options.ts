import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Clock, TurnLogger } from "@turnkit/agent-core";
import type { McpOAuthOptions } from "./oauth-options.js";
import type { McpOAuthProvider } from "./oauth-provider.js";
import type { McpServerStatus } from "./mcp-status.js";

/**
 * A server the extension starts and owns: `command` with `args`, spoken to
 * over the process's stdin and stdout. The process gets the SDK's safe
 * default environment (`HOME`, `PATH`, `SHELL`, `TERM`, `USER`, `LOGNAME`)
 * plus `env`; its stderr is kept (the last characters) for the status and
 * for error messages, never printed.
 */
export interface McpStdioServerConfig {
  /** The executable; looked up on `PATH` when it has no slash. */
  readonly command: string;
  /** Its arguments, passed as they are (no shell). */
  readonly args?: readonly string[];
  /** Extra environment variables, on top of the default ones. */
  readonly env?: Readonly<Record<string, string>>;
  /** Working directory of the process; the host's when absent. */
  readonly cwd?: string;
  /** Not a field of a stdio server; present only to tell the two kinds apart. */
  readonly url?: never;
}

/** A server reached over Streamable HTTP at `url`; `headers` go with every request (for auth). */
export interface McpHttpServerConfig {
  /** The MCP endpoint, `http:` or `https:`. */
  readonly url: string | URL;
  /** Sent with every request, e.g. `{ Authorization: "Bearer …" }`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** OAuth through the SDK's auth provider (see {@link McpOAuthOptions}); absent: no authorization beyond `headers`. */
  readonly auth?: McpOAuthOptions;
  /** Not a field of an HTTP server; present only to tell the two kinds apart. */
  readonly command?: never;
}

/** Where the server is: a command to spawn or a URL to reach. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/**
 * When and how often a server whose connection was lost (a process that
 * exited, a protocol error, a broken HTTP stream, a failed connect) is
 * restarted. Restarts happen at turn assembly (or `connect()`), never in the
 * middle of a turn.
 *
 * The first restart in a row is made at the next turn; each further one
 * waits `backoffMs`, then twice that, and so on up to `maxBackoffMs`,
 * counted from the loss (a turn assembled sooner runs without restarting
 * it). After `maxRestarts` restarts in a row the server is given up
 * (`gave_up`) until the host calls `connect()`. A connection that has been
 * ready for `healthyAfterMs` is healthy: the count starts again from 0, so
 * brief outages spread over a long-running host never use it up.
 */
export interface McpRestartPolicy {
  /** Restarts in a row (without a healthy period between them) before giving up; `0` never restarts. Default 3. */
  readonly maxRestarts?: number;
  /** Wait before the second restart in a row, in ms; doubles for each further one. Default 1,000. */
  readonly backoffMs?: number;
  /** The longest wait between two restarts, in ms. Default 60,000. */
  readonly maxBackoffMs?: number;
  /** How long a connection must stay ready for the count to start again from 0, in ms. Default 60,000. */
  readonly healthyAfterMs?: number;
}

/** The severity of a server's log message, lowest first (the protocol's syslog levels). */
export type McpLogLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";

/**
 * A root the server may work in: a directory of the host's workspace,
 * given as an absolute path (made a `file://` URI) or as a `file://` URI
 * with an optional name (the protocol allows no other roots).
 */
export type McpRoot = string | { readonly uri: string; readonly name?: string };

/**
 * The host's consent to a server's sampling requests (`sampling/createMessage`):
 * given, the client declares the sampling capability and serves them with
 * the model of the turn whose tool call is running, through that turn's
 * auxiliary stream function (counted in the turn's usage and budget).
 */
export interface McpSamplingPolicy {
  /** The most tokens one request may ask for; the server's `maxTokens` is capped to it. Default 4,096. */
  readonly maxTokens?: number;
}

/**
 * The host's consent to a server's elicitation requests (`elicitation/create`,
 * form mode): given, the client declares the elicitation capability and
 * asks the person through the turn whose tool call is running, as an
 * `action.required` of kind `elicitation` answered by the host's
 * `RunTurnInput.answerActionRequest`.
 */
export interface McpElicitationPolicy {
  /** How long to wait for the person's answer, in ms, before the server gets `cancel`. Default: agent-core's `TURN_DEFAULTS.actionRequestTimeoutMs` (10 min). */
  readonly timeoutMs?: number;
}

/** Options of `createMcpExtension`. Only `id` and `server` are required. */
export interface McpExtensionOptions {
  /** The extension id (lower case, `[a-z0-9][a-z0-9._-]*`); it names the server in errors and the status. */
  readonly id: string;
  /** One line for listings; defaults to a description of the server. */
  readonly description?: string;
  /** The server. */
  readonly server: McpServerConfig;
  /**
   * Prepended to every tool name the model sees (`"github_"` turns `search`
   * into `github_search`), so two servers with the same tool names can share
   * a runtime. Without it, a clash present from the first turn fails the
   * turn's assembly with the runtime's `duplicate_tool` error naming both
   * extensions; one that appears later (a server's tool list changed)
   * leaves the newcomer out of the turn with an `extension_degraded`
   * warning naming both.
   */
  readonly toolPrefix?: string;
  /**
   * Exposed names for single tools, by the server's name (`{ search:
   * "gh_search" }`); wins over `toolPrefix`. Characters a model provider
   * does not accept in a tool name become `_` either way.
   */
  readonly toolNames?: Readonly<Record<string, string>>;
  /**
   * Per-call timeout in ms: how long the server may send nothing. A
   * progress notification restarts it, and it waits while the host serves
   * a sampling or elicitation request of the server (a person may take
   * longer to answer). Default `DEFAULT_CALL_TIMEOUT_MS`.
   */
  readonly callTimeoutMs?: number;
  /**
   * The most one call may take in all, in ms, however much progress the
   * server reports; then the call is cancelled on the server and answered
   * with a `call_timeout` error naming this limit. Default
   * `DEFAULT_CALL_MAX_DURATION_MS` (ten minutes).
   */
  readonly callMaxDurationMs?: number;
  /**
   * The most characters of text one tool result shows the model; the rest
   * is cut, with a line saying how much there was (and `details.truncated`
   * says so too). Images and `details.structuredContent` are not cut.
   * Default `DEFAULT_MAX_RESULT_CHARS`.
   */
  readonly maxResultChars?: number;
  /**
   * The most bytes of one message from the server that are read (a tool
   * result, a resource, a list page). `maxResultChars` bounds what the model
   * sees; this bounds the host's memory: a longer message is not read, the
   * calls in flight fail with `message_too_large` naming this limit, and the
   * connection is closed (the next turn makes a new one). Default
   * `DEFAULT_MAX_MESSAGE_BYTES` (10 MiB).
   */
  readonly maxMessageBytes?: number;
  /** Timeout in ms for starting, the handshake and listing tools, each. Default `DEFAULT_CONNECT_TIMEOUT_MS`. */
  readonly connectTimeoutMs?: number;
  /** How a lost server is restarted; see {@link McpRestartPolicy}. Default `DEFAULT_RESTART_POLICY`. */
  readonly restart?: McpRestartPolicy;
  /**
   * How long a stdio server gets to exit after end-of-input, and again after
   * `SIGTERM`, before `SIGTERM` and then `SIGKILL` are sent, in ms. Default
   * `DEFAULT_SHUTDOWN_GRACE_MS`.
   */
  readonly shutdownGraceMs?: number;
  /**
   * The clock of the restart policy and of the call limits (`callTimeoutMs`,
   * `callMaxDurationMs`); agent-core's `systemClock` when absent. Tests pass
   * a virtual clock.
   */
  readonly clock?: Clock;
  /**
   * Where the server's log messages (`notifications/message`) go, one call
   * per message: `debug` for debug, info and notice, `warn` for warning,
   * `error` for error and above; `attrs` hold the server id, the level, the
   * server's logger name and its data. Also one `warn` per connection when
   * a stdio server writes to its stdout a line that is no JSON-RPC message
   * (a banner, a log line; the line is dropped), quoting it. Absent: they
   * are dropped. A logger that throws is ignored.
   */
  readonly logger?: TurnLogger;
  /**
   * The lowest level the server should send, asked with `logging/setLevel`
   * after the handshake when the server supports logging. Absent: the
   * server's own choice.
   */
  readonly logLevel?: McpLogLevel;
  /**
   * The roots the server may work in (`roots/list`), typically the host's
   * workspace. Given: the client declares the roots capability and answers
   * with these; `extension.setRoots()` changes them later and tells the
   * server (`notifications/roots/list_changed`). Absent: no roots capability.
   */
  readonly roots?: readonly McpRoot[];
  /**
   * Lets the server ask the turn's model for completions while one of its
   * tool calls runs (see {@link McpSamplingPolicy}). Absent (the default):
   * refused; the client does not declare sampling, so the server cannot ask.
   */
  readonly sampling?: McpSamplingPolicy;
  /**
   * Lets the server ask the person for input while one of its tool calls
   * runs (see {@link McpElicitationPolicy}). Absent (the default): refused;
   * the client does not declare elicitation, so the server cannot ask.
   */
  readonly elicitation?: McpElicitationPolicy;
  /** Called with every new status (state changes, a new tool list); its throws are ignored. */
  readonly onStatus?: (status: McpServerStatus) => void;
}

/** A transport description after validation. */
export type McpTransportSettings =
  | {
      readonly kind: "stdio";
      readonly command: string;
      readonly args: readonly string[];
      readonly env: Readonly<Record<string, string>>;
      readonly cwd: string | undefined;
    }
  | {
      readonly kind: "http";
      readonly url: URL;
      readonly headers: Readonly<Record<string, string>>;
      /** The server's OAuth client, kept for the extension's life; `undefined`: no OAuth. */
      readonly auth: McpOAuthProvider | undefined;
    };
