/** Defaults of `@turnkit/agent-durable`; every one can be overridden through the options that name it. */

/** DBOS application name shared by the workers and clients of one deployment. */
export const DEFAULT_APP_NAME = "turnkit";
/**
 * Application version stamped on every turn; workers recover and dequeue
 * only turns of their own version. Raised whenever the steps of a turn
 * change (3: the setup's warnings became a step; 4: they are one step
 * with the history the turn starts from, and a model request that asks
 * for tool calls no longer takes steering), so a worker never
 * replays a turn an older one started.
 */
export const DEFAULT_APP_VERSION = "turnkit-durable-5";
/** The DBOS queue new turns go through. */
export const DEFAULT_QUEUE_NAME = "turnkit-turns";
/** Turns one worker process runs at once. */
export const DEFAULT_WORKER_CONCURRENCY = 8;
/** The Postgres schema of DBOS's system tables (DBOS's default, which the workers do not change). */
export const DBOS_SYSTEM_SCHEMA = "dbos";
/** Postgres schema of the event log, turn table, steering inbox and session history. */
export const DEFAULT_SCHEMA = "turnkit_durable";
/** How long an approval waits for `respond` before the call is answered as blocked: one day. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 24 * 60 * 60 * 1000;
/** How long `connect` and `launch` wait for Postgres to accept a connection before they give up. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** How long a client call waits for the database to answer one statement before it rejects (`database_unavailable`). */
export const DEFAULT_QUERY_TIMEOUT_MS = 30_000;
/** A worker whose heartbeat is older than this is presumed dead and its turns are recovered by another. */
export const DEFAULT_WORKER_LEASE_MS = 15_000;
/** Longest pause between two looks of a worker for expired leases of other workers (a quarter lease when shorter). */
export const LEASE_CHECK_MAX_INTERVAL_MS = 500;
/**
 * How old (a share of the lease) the last heartbeat that carried the lease
 * on may be, from when it was sent, for an effect to start: what is left
 * of the lease, a quarter, is the least time before another worker may
 * take the turn over. Also how long the database must have answered a
 * worker's heartbeats without such a gap before it may take another's
 * lease over.
 */
export const EFFECT_LEASE_SHARE = 0.75;

/**
 * How often the server checks, while it runs a statement of a worker, that
 * the worker's connection is still there (Postgres 14 and later,
 * `client_connection_check_interval`): a statement of a worker that died,
 * or of a launch that gave up and closed its connections, is ended within
 * this long even while it waits for a lock, instead of when it next writes
 * to the connection.
 */
export const CLIENT_CHECK_INTERVAL_MS = 1_000;
/**
 * How often a worker tries again to queue a turn whose statement lost its
 * connection (see `handBackLostTurns`) while the database cannot be reached.
 */
export const LOST_TURN_RETRY_MS = 250;
/**
 * How long a worker's database connection is idle before its socket starts
 * TCP keepalive probes: a server host that lost the connection (a failover,
 * a restart) answers the first with a reset, so a statement waiting on it
 * fails instead of waiting without end; a host that is gone answers none,
 * and the system's probe count and interval (about 11 minutes on Linux)
 * end the connection.
 */
export const TCP_KEEPALIVE_DELAY_MS = 10_000;
/**
 * The longest a pool connection stays open idle (pg-pool's own default),
 * or the statement timeout when that is shorter (see `idleTimeoutFor`).
 */
export const POOL_IDLE_MAX_MS = 10_000;
/** The longest pause between a worker's tries to take its presence lock again after its connection was lost (see `LaunchPresence`). */
export const PRESENCE_RETRY_MS = 250;
/** How often a worker looks for abort requests of the turns it runs. */
export const ABORT_POLL_MS = 150;
/** How often a worker looks for turns cancelled with DBOS's tools, to end them as aborted. */
export const CANCELLED_SWEEP_MS = 1_000;
/** How long a follower waits for a notification before it reads the log again anyway. */
export const FOLLOW_POLL_MS = 500;
/** How often `outcome` looks whether a turn finished. */
export const OUTCOME_POLL_MS = 100;
/** Most events one log write carries; a larger buffer is written in several statements. */
export const MAX_EVENTS_PER_WRITE = 2_000;
/**
 * How often an idle worker looks at the turn queue for new work: a started
 * turn waits half of it on average before a worker takes it. A look on an
 * empty queue is one read-only transaction.
 */
export const DEFAULT_QUEUE_POLLING_INTERVAL_MS = 20;
/** How often a tool call waiting for the host's answer (`ctx.askHost`) looks for it. */
export const HOST_ANSWER_POLL_MS = 100;
/** The DBOS topic approvals and abort notices are sent on. */
export const APPROVAL_TOPIC = "turnkit.approval";
/** Name of the DBOS workflow that runs a durable turn. */
export const TURN_WORKFLOW_NAME = "turnkit.durable-turn";
/** The Postgres notification channel the event log announces new events on. */
export const EVENTS_CHANNEL = "turnkit_durable_events";
/**
 * The highest `seq` a turn's log can hold (the largest Postgres `integer`):
 * `readEvents` and `follow` refuse a larger `afterSeq` with `invalid_input`,
 * so a server taking a reader's last seen seq (an SSE `Last-Event-ID`) can
 * refuse one above it before its stream starts.
 */
export const MAX_SEQ = 2_147_483_647;
/** Events one `readEvents` returns unless the caller says. */
export const DEFAULT_READ_LIMIT = 10_000;
/** Most events one `readEvents` may ask for. */
export const MAX_READ_LIMIT = 1_000_000;
/** Sessions per page of `listSessions` unless the caller says. */
export const DEFAULT_SESSION_PAGE = 50;
/** Most sessions one page of `listSessions` holds. */
export const MAX_SESSION_PAGE = 500;
