import pg from "pg";
import { CLIENT_CHECK_INTERVAL_MS } from "../defaults.js";
import type { ConnectionSockets } from "../store/connection-sockets.js";

/**
 * The worker's pools, every connection's socket in `sockets`. On a server
 * of version 14 or later (`serverVersion`, its `server_version_num`), the
 * server ends a statement whose worker connection is gone within
 * {@link CLIENT_CHECK_INTERVAL_MS}, also one waiting for a lock.
 */
export function workerPools(
  databaseUrl: string,
  settings: { workerId: string; leaseMs: number },
  sockets: ConnectionSockets,
  serverVersion: number,
) {
  // Named after the worker in pg_stat_activity (and in the tests' audit of who wrote what).
  const application_name = `turnkit-worker ${settings.workerId}`.slice(0, 63);
  const check = serverVersion >= 140_000 ? `-c client_connection_check_interval=${CLIENT_CHECK_INTERVAL_MS}` : "";
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: 10,
    application_name,
    options: check,
    stream: sockets.open,
  });
  // Most writes commit without waiting for the disk: the event log, the session history, the steering takes
  // here, and DBOS's own writes (taking a turn from the queue, each step's checkpoint) on the pool below. What
  // waits is what comes before an effect outside the database, on the pool above: a tool call's attempt row
  // (before `execute`), the claim check before a model request that follows other live steps (see
  // `beginLiveStep`), the turn's outcome. Each of those commits makes every commit before it durable too (the
  // write-ahead log is one sequence); a server crash loses only what came after the last one, which the turn
  // then makes again (see the README's "What a step commits").
  const behindCheckpointPool = new pg.Pool({
    connectionString: databaseUrl,
    max: 5,
    application_name,
    options: `-c synchronous_commit=off ${check}`,
    stream: sockets.open,
  });
  const dbosPool = new pg.Pool({
    connectionString: databaseUrl,
    max: 10,
    connectionTimeoutMillis: 10_000,
    application_name: `dbos ${settings.workerId}`.slice(0, 63),
    options: `-c synchronous_commit=off -c idle_in_transaction_session_timeout=60000 ${check}`,
    stream: sockets.open,
  });
  // The heartbeat's own connection, which no turn's statement holds up; one the database has not answered in
  // a lease is given up (its connection closed; a late answer to one that is kept only slows the next), while the
  // worker stops its effects once its last answered heartbeat is older than `EFFECT_LEASE_SHARE` of a lease.
  const beatTimeoutMs = Math.max(1, settings.leaseMs);
  const beatPool = new pg.Pool({
    connectionString: databaseUrl,
    max: 2,
    application_name,
    connectionTimeoutMillis: beatTimeoutMs,
    query_timeout: beatTimeoutMs,
    options: check,
    stream: sockets.open,
  });
  const pools = [pool, behindCheckpointPool, dbosPool, beatPool];
  for (const each of pools) each.on("error", () => {});
  return { pools, pool, behindCheckpointPool, dbosPool, beatPool };
}
