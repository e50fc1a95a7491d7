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
 *   says why); a turn reconnects it, as a restart, once the restart
 *   policy's wait (`nextRestartInMs`) is over.
 * - `gave_up`: lost, and `maxRestarts` restarts in a row are used; calls to
 *   its tools are answered with a `server_unavailable` error result until
 *   the host calls `connect()`.
 * - `disposed`: the runtime was disposed; nothing runs.
 */
export type McpServerState = "idle" | "connecting" | "ready" | "failed" | "gave_up" | "disposed";

/**
 * What the server says about a tool's effects (its annotations, with the
 * protocol's defaults), for permission hooks deciding whether to ask a
 * person: look them up with `extension.toolHints(toolCall.name)`. They are
 * the server's claims, as trustworthy as the server.
 */
export interface McpToolHints {
  /** `readOnlyHint`: the tool changes nothing. Default false. */
  readonly readOnly: boolean;
  /** `destructiveHint`: a change may delete or overwrite (not only add). Default true; false for a read-only tool. */
  readonly destructive: boolean;
  /** `idempotentHint`: calling again with the same arguments changes nothing more. Default false; true for a read-only tool. */
  readonly idempotent: boolean;
  /** `openWorldHint`: the tool reaches outside entities (the web, other people), not a closed domain. Default true. */
  readonly openWorld: boolean;
}

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
  /** The server's hints about the tool's effects. */
  readonly hints: McpToolHints;
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
  /** The server announced a new resource list since the host last called `listResources()`. */
  readonly resourcesOutdated: boolean;
  /** The server announced a new prompt list since the host last called `listPrompts()`. */
  readonly promptsOutdated: boolean;
  /** Restarts in a row since the server was last healthy (ready for `healthyAfterMs`); what `maxRestarts` limits. */
  readonly restarts: number;
  /** Restarts allowed in a row (the restart policy's `maxRestarts`). */
  readonly maxRestarts: number;
  /** Restarts over the extension's life. */
  readonly totalRestarts: number;
  /**
   * When `failed`: how long after this snapshot was taken a turn may restart
   * the server, in ms (0: the next turn does). `undefined` in every other state.
   */
  readonly nextRestartInMs: number | undefined;
  /**
   * The server's name and version from the handshake, once connected, and
   * its `instructions` when it gave any: how to use its tools, meant for
   * the model. The extension never adds them to a turn; a host that trusts
   * the server may put them in the system prompt.
   */
  readonly serverInfo: { readonly name: string; readonly version: string; readonly instructions?: string } | undefined;
  /** The latest failure (kept after a successful restart, for the record). */
  readonly lastError: McpServerError | undefined;
  /** The last characters a stdio server wrote to stderr; `""` for HTTP. */
  readonly stderrTail: string;
}
