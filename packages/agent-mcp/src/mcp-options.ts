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
  /** Not a field of an HTTP server; present only to tell the two kinds apart. */
  readonly command?: never;
}

/** Where the server is: a command to spawn or a URL to reach. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

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
   * a runtime. Without it, a clash fails the turn's assembly with the
   * runtime's `duplicate_tool` error naming both extensions.
   */
  readonly toolPrefix?: string;
  /**
   * Exposed names for single tools, by the server's name (`{ search:
   * "gh_search" }`); wins over `toolPrefix`. Characters a model provider
   * does not accept in a tool name become `_` either way.
   */
  readonly toolNames?: Readonly<Record<string, string>>;
  /** Per-call timeout in ms (a progress notification restarts it). Default `DEFAULT_CALL_TIMEOUT_MS`. */
  readonly callTimeoutMs?: number;
  /** Timeout in ms for starting, the handshake and listing tools, each. Default `DEFAULT_CONNECT_TIMEOUT_MS`. */
  readonly connectTimeoutMs?: number;
  /** Reconnections allowed over the extension's life after a lost connection. Default `DEFAULT_MAX_RESTARTS`; `0` never restarts. */
  readonly maxRestarts?: number;
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
  | { readonly kind: "http"; readonly url: URL; readonly headers: Readonly<Record<string, string>> };
