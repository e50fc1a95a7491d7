/**
 * The package's constants. The trace phases are written by
 * `@turnkit/agent-durable` (and `@turnkit/agent-core`); they are matched by
 * name so this package needs nothing but the protocol.
 */

/** `debug.trace` phase of a durable turn's approval outcome (`attrs: { requestId, result }`). */
export const APPROVAL_TRACE_PHASE = "durable.approval";

/**
 * `debug.trace` phase of how a question a tool asked (`ctx.askHost`) ended
 * (`attrs: { requestId, kind, outcome }`), written by `@turnkit/agent-core`
 * and `@turnkit/agent-durable`.
 */
export const ACTION_REQUEST_TRACE_PHASE = "action.request";

/** `debug.trace` phase logged after a crash (`attrs: { supersededFromSeq, supersededToSeq }`). */
export const RESUME_TRACE_PHASE = "durable.resume";

/** How many times {@link TurnkitChatTransport} reconnects a broken stream before it gives up. */
export const DEFAULT_RECONNECT_ATTEMPTS = 5;

/** Milliseconds before the first reconnect; each further attempt waits twice as long. */
export const DEFAULT_RECONNECT_DELAY_MS = 250;

/**
 * Response header naming the turn a chat stream is of (`X-Turnkit-Turn-Id`).
 * A server sets it on `POST <api>`: the stream's `start` chunk names the
 * turn too, but a queued turn's stream sends nothing until the turn runs,
 * and {@link TurnkitChatTransport} needs the id to resume that stream.
 */
export const TURN_ID_HEADER = "x-turnkit-turn-id";

/**
 * Milliseconds a UI message stream may stay silent before it sends a
 * keep-alive comment (`toUIMessageStreamSse`'s `keepAliveMs`): well under
 * the idle timeouts of common proxies and load balancers (30 to 100 s).
 */
export const DEFAULT_KEEP_ALIVE_MS = 15_000;

/** The SSE comment a silent stream sends to keep its connection open; clients skip it (no event). */
export const KEEP_ALIVE_COMMENT = ": keep-alive\n\n";
