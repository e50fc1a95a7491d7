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

/**
 * The most characters of text one tool result shows the model (about 25,000
 * tokens): the text beyond is cut, with a line saying so. A result too long
 * for the model's context would make the provider refuse that request and
 * every later one of the session, whose transcript holds it.
 */
export const DEFAULT_MAX_RESULT_CHARS = 100_000;

/**
 * The most bytes of one message from a server that are read (10 MiB, the
 * MCP SDK's own limit for stdio): a longer one (a result of hundreds of
 * megabytes) is not read into memory; the calls in flight fail with
 * `message_too_large` and the connection is closed.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** How long starting a server, the `initialize` handshake and a `tools/list` may take, each. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

/**
 * The most one `tools/call` may take in all, progress notifications or not:
 * ten minutes. A server that keeps reporting progress is cancelled then.
 */
export const DEFAULT_CALL_MAX_DURATION_MS = 600_000;

/**
 * How a lost server is restarted, when no `restart` option says otherwise:
 * up to 3 restarts in a row, the first at the next turn, the next ones
 * after 1 s, 2 s, 4 s … (at most a minute); a connection that stays ready
 * for a minute is healthy and the count starts again from 0.
 */
export const DEFAULT_RESTART_POLICY = Object.freeze({
  maxRestarts: 3,
  backoffMs: 1_000,
  maxBackoffMs: 60_000,
  healthyAfterMs: 60_000,
});

/**
 * How long a stdio server gets to exit after end-of-input, and again after
 * `SIGTERM`, before the next step (`SIGTERM`, then `SIGKILL`). The SDK's
 * own steps, two seconds.
 */
export const DEFAULT_SHUTDOWN_GRACE_MS = 2_000;

/**
 * How long a stdio server's process may take to be gone once it got
 * `SIGKILL` (at least one shutdown grace): the kernel ends it at once, but
 * on a loaded machine its exit can reach us after the grace. A process
 * still there after this cannot be killed and is no longer waited for.
 */
export const KILLED_EXIT_WAIT_MS = 5_000;

/**
 * The least time between the starts of two GETs of a Streamable HTTP
 * session when the first one's event stream ended without a message (a
 * server that ends its stream at once and asks to be asked again at once):
 * the SDK's own delay without a `retry` from the server.
 */
export const EMPTY_STREAM_REOPEN_MS = 1_000;

/**
 * How many of a server's cancellations of its own requests that came
 * before the request was served (both read at once) are remembered, for
 * the request to be cancelled as it starts (see `ServerRequestCancels`).
 */
export const EARLY_CANCELS_KEPT = 16;

/**
 * The environment variable each stdio server's process gets, with a value
 * of its own, and which the processes it starts inherit: on Linux, a
 * server whose wrapper (`sh -c`, `npx`, `uv run`) is gone is found by it
 * when it is stopped, though it is no longer known as the wrapper's child.
 */
export const SERVER_PROCESS_MARKER_VARIABLE = "TURNKIT_MCP_SERVER_PROCESS";

/**
 * How often the end of a process a stdio server started (through `sh -c`,
 * `npx`, `uv run`) is looked for while it is being stopped: it is no child
 * of the host's, so no exit event tells of it.
 */
export const STARTED_PROCESS_POLL_MS = 25;

/**
 * How long after a stdio server's stdout ended (or its stdin broke) its
 * process may take to exit before the connection counts as lost by a
 * closed pipe (the process lives on): a process that exits ends its pipes
 * at the same moment, and its exit and last stderr line explain the loss
 * better.
 */
export const PIPE_END_EXIT_WAIT_MS = 200;

/**
 * The most pages one listing (`tools/list`, `resources/list`,
 * `prompts/list`) follows: a server that keeps handing out new cursors
 * fails the listing instead of being asked forever.
 */
export const MAX_LIST_PAGES = 1_000;

/** How much of a stdio server's stderr is kept, last characters first, for status and error messages. */
export const STDERR_TAIL_CHARS = 2_000;

/**
 * How long a connect whose `initialize` an HTTP server refused waits to
 * learn whether the server speaks the old HTTP+SSE transport instead (see
 * `oldSseEndpoint`): a short wait, as the answer is its first event.
 */
export const OLD_SSE_PROBE_TIMEOUT_MS = 2_000;

/** How long `dispose()` waits for an HTTP server to acknowledge the end of its session before closing anyway. */
export const SESSION_END_TIMEOUT_MS = 1_000;

/** How the extension introduces itself to servers in `initialize`. */
export const MCP_CLIENT_INFO = { name: "turnkit-agent-mcp", version: "0.1.0" } as const;

/**
 * How many turns' models a sampling extension remembers (the latest ones):
 * a turn serves sampling while its tool calls run, and hosts need not
 * report a turn's end, so older turns are forgotten instead.
 */
export const MAX_SAMPLING_TURNS = 64;

/** The most tokens a server's sampling request may ask the turn's model for, unless `sampling.maxTokens` says otherwise. */
export const DEFAULT_SAMPLING_MAX_TOKENS = 4_096;

/**
 * How many times a request is sent again when the server closed its socket
 * before answering: each failure drops one pooled socket the server had
 * closed (a restarted server leaves as many as the client held).
 */
export const STALE_SOCKET_RETRIES = 4;

/**
 * How soon after sending a request a socket closed without an answer counts
 * as a pooled socket the server had already closed (it fails at once), so
 * that the request is sent again; later, the server had the request.
 */
export const STALE_SOCKET_WINDOW_MS = 1_000;

/**
 * How long a stdio server's handshake may go unanswered before the client
 * writes its first `ping` to it (then after twice as long each time): a
 * server that closed its stdin and lives on is seen only at a write (see
 * `probeUnansweredHandshake`).
 */
export const HANDSHAKE_PROBE_FIRST_MS = 1_000;
