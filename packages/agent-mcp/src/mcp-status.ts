import type { McpServerError } from "./mcp-server-error.js";

/**
 * Where an MCP server's connection stands.
 *
 * - `idle`: not connected yet; the first turn that assembles the extension's
 *   tools (or `connect()`) connects.
 * - `connecting`: starting the process or opening the session, the
 *   handshake, the first `tools/list`.
 * - `ready`: connected; calls go to the server.
 * - `failed`: the connection was lost or could not be made (`lastError`
 *   says why); the next turn reconnects, as a restart.
 * - `gave_up`: lost, and every restart allowed by `maxRestarts` is used;
 *   calls to its tools are answered with a `server_unavailable` error result.
 * - `disposed`: the runtime was disposed; nothing runs.
 */
export type McpServerState = "idle" | "connecting" | "ready" | "failed" | "gave_up" | "disposed";

/** One tool as the model sees it, with the server's name for it. */
export interface McpToolSummary {
  /** The name the model calls (after `toolPrefix` / `toolNames`). */
  readonly name: string;
  /** The server's own name for the tool. */
  readonly serverToolName: string;
  /** The description sent to the model. */
  readonly description: string;
  /** `parallel` for tools the server marks `readOnlyHint`, else `sequential`. */
  readonly executionMode: "parallel" | "sequential";
}

/**
 * A snapshot of one MCP extension's server: read it from `extension.status`
 * or receive every new one through `onStatus` / `subscribe`. Frozen; a new
 * object is made for each change.
 */
export interface McpServerStatus {
  /** The extension id, which names the server. */
  readonly id: string;
  /** How the server is reached. */
  readonly transport: "stdio" | "http";
  /** See {@link McpServerState}. */
  readonly state: McpServerState;
  /** The tools of the latest `tools/list` (kept while the server is down), in the server's order. */
  readonly tools: readonly McpToolSummary[];
  /** The server announced a new tool list (`notifications/tools/list_changed`); the next turn fetches it. */
  readonly toolsOutdated: boolean;
  /** Reconnections made so far. */
  readonly restarts: number;
  /** Reconnections allowed over the extension's life. */
  readonly maxRestarts: number;
  /** The server's name and version from the handshake, once connected. */
  readonly serverInfo: { readonly name: string; readonly version: string } | undefined;
  /** The latest failure (kept after a successful restart, for the record). */
  readonly lastError: McpServerError | undefined;
  /** The last characters a stdio server wrote to stderr; `""` for HTTP. */
  readonly stderrTail: string;
}
