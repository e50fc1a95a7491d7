/**
 * Defaults of the loop that a user can observe. Everything else is passed in.
 */

/** Tool calls of one response run in parallel unless told otherwise. */
export const DEFAULT_TOOL_EXECUTION = "parallel" as const;

/** Steering and follow-up queues hand out one entry per poll by default. */
export const DEFAULT_QUEUE_MODE = "one-at-a-time" as const;

/**
 * After the run's signal fires, how long the loop still waits for a stream,
 * a tool or a listener that ignores the signal before it stops waiting and
 * records the step as aborted. Well-behaved parts settle long before this.
 */
export const ABORT_GRACE_MS = 250;

/**
 * Largest proxy request body the stream-proxy handler reads, in bytes. A
 * request carries the whole context (images as base64), so this is generous;
 * a larger body is refused with 413 before it is parsed.
 */
export const PROXY_MAX_BODY_BYTES = 32 * 1024 * 1024;

/** The status the stream-proxy handler answers a denied request with when the host gives none. */
export const PROXY_DENY_STATUS = 401;
