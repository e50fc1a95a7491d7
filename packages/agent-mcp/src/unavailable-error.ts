import { McpServerError, McpServerErrorCode } from "./mcp-server-error.js";
import type { McpServerState } from "./mcp-status.js";

/** Where the server stands when a call cannot be sent. */
export interface UnavailableContext {
  readonly serverId: string;
  readonly state: McpServerState;
  /** Restarts in a row used. */
  readonly restarts: number;
  readonly maxRestarts: number;
  /** How long until a turn may restart it, in ms (when `failed`). */
  readonly restartInMs: number;
  /** Why it went down, if it did. */
  readonly lastError: McpServerError | undefined;
}

/**
 * The `server_unavailable` error a call gets without being sent: why the
 * server is down and whether (and when) it comes back.
 */
export function unavailableError(context: UnavailableContext): McpServerError {
  const reason = (): string => {
    const message = context.lastError?.message ?? "lost its connection";
    const prefix = `MCP server "${context.serverId}" `;
    return message.startsWith(prefix) ? message.slice(prefix.length) : message;
  };
  const why = (): string => {
    switch (context.state) {
      case "disposed":
        return "is not available: the runtime was disposed";
      case "gave_up":
        return `is not running and will not be restarted (${context.restarts} of ${context.maxRestarts} restarts in a row used); it ${reason()}`;
      case "failed": {
        const wait = context.restartInMs;
        const when = wait > 0 ? `at a turn in ${(wait / 1000).toFixed(1)} s or later` : "for the next turn";
        return `is not running: it ${reason()}; it is restarted ${when}`;
      }
      case "idle":
      case "connecting":
      case "ready":
        return "is not connected";
      default: {
        const unreachable: never = context.state;
        return unreachable;
      }
    }
  };
  return new McpServerError({
    code: McpServerErrorCode.Unavailable,
    serverId: context.serverId,
    message: why(),
    cause: context.lastError,
  });
}
