import type pg from "pg";

function ignoreConnectionError(): void {}

/**
 * Gives `pool`, and every connection it opens from the moment it is made,
 * an `error` listener that ignores the event, and returns `pool`.
 *
 * A connection lost while it is in use is still reported to its
 * statements (they fail, and the pool drops the connection); the listener
 * only keeps the event from ending the process. `pg-pool` hands a new
 * connection over with no listener of its own, and a caller that takes it
 * with `await pool.connect()` (our transactions, DBOS's statements) adds
 * one only once its `await` resumes. The messages that came in the same
 * read as the connection's ready message are handled before that: when
 * the server ended the connection right after making it (a restart, a
 * failover, `pg_terminate_backend`), its "terminating connection" reached
 * a connection with no listener, and Node ended the worker process for the
 * unhandled `error` event.
 */
export function listenForConnectionErrors<T extends pg.Pool>(pool: T): T {
  pool.on("error", ignoreConnectionError);
  pool.on("connect", (client) => client.on("error", ignoreConnectionError));
  return pool;
}
