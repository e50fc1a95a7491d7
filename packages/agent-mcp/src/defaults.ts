/**
 * Every user-visible default of `@turnkit/agent-mcp`, in one place.
 * Nothing else in the package hard-codes these values.
 */

/**
 * How long one `tools/call` may go without an answer (or a progress
 * notification, which restarts the wait) before it is cancelled and answered
 * with an error result. The SDK's own request default, one minute.
 */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

/** How long starting a server, the `initialize` handshake and a `tools/list` may take, each. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

/**
 * How many times a server whose connection was lost (a stdio process that
 * exited, a connection that failed) is reconnected, each time for the next
 * turn, over the extension's life. After that it stays down.
 */
export const DEFAULT_MAX_RESTARTS = 3;

/** How much of a stdio server's stderr is kept, last characters first, for status and error messages. */
export const STDERR_TAIL_CHARS = 2_000;

/** How long `dispose()` waits for an HTTP server to acknowledge the end of its session before closing anyway. */
export const SESSION_END_TIMEOUT_MS = 1_000;

/** How the extension introduces itself to servers in `initialize`. */
export const MCP_CLIENT_INFO = { name: "turnkit-agent-mcp", version: "0.1.0" } as const;
