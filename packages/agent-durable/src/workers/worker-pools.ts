import pg from "pg";
import { CLIENT_CHECK_INTERVAL_MS, TCP_KEEPALIVE_DELAY_MS } from "../defaults.js";
import { listenForConnectionErrors } from "../store/connection-errors.js";
import type { ConnectionSockets } from "../store/connection-sockets.js";
import { HandingBackPool } from "../store/handing-back-pool.js";
import { idleTimeoutFor } from "../store/idle-timeout.js";
import type { TurnClaim } from "../store/turn-claim.js";
import { handBackLostTurns } from "./lost-connection.js";

/**
 * The worker's pools, every connection's socket in `sockets`. On a server
 * of version 14 or later (`serverVersion`, its `server_version_num`), the
 * server ends a statement whose worker connection is gone within
 * {@link CLIENT_CHECK_INTERVAL_MS}, also one waiting for a lock.
 *
 * A turn's statements on `pool` and `behindCheckpointPool` hand the turn
 * back when their connection is lost (see `HandingBackPool`), queueing it
 * again on `beatPool`; `turns` names the claims of the executions running
 * here and whether the worker shuts down. The event log's and the session
 * history's writes, which their writers send again themselves, go to
 * `logPool`, which does not; `handBack` queues a turn again the same way
 * (for a write that finds its execution ahead of what the database kept).
 *
 * No connection is waited on without end: every socket probes its peer
 * once idle for {@link TCP_KEEPALIVE_DELAY_MS} (a server that lost the
 * connection, as after a failover or a restart of its host, answers with a
 * reset), and a statement of `pool`, `behindCheckpointPool` or `logPool`
 * the database has not answered within `queryTimeoutMs` is given up, its
 * connection closed: a connection that died without a word (its packets
 * dropped) would otherwise hold the turn's statement, and the turn, for as
 * long as the worker's heartbeats, on a connection of their own, keep its
 * lease. A turn's statement given up so hands the turn back. Those pools
 * keep a connection idle no longer than a statement may take (see
 * `idleTimeoutFor`), so the other connections that died idle are closed by
 * then, and the turn goes on after one statement's timeout.
 */
export function workerPools(
  databaseUrl: string,
  settings: { workerId: string; leaseMs: number; queueName: string; queryTimeoutMs: number },
  sockets: ConnectionSockets,
  serverVersion: number,
  turns: { claims(): Iterable<TurnClaim>; stopped(): boolean },
) {
  // Named after the worker in pg_stat_activity (and in the tests' audit of who wrote what).
  const application_name = `turnkit-worker ${settings.workerId}`.slice(0, 63);
  const check = serverVersion >= 140_000 ? `-c client_connection_check_interval=${CLIENT_CHECK_INTERVAL_MS}` : "";
  const keepAlive = { keepAlive: true, keepAliveInitialDelayMillis: TCP_KEEPALIVE_DELAY_MS };
  const bounded = {
    ...keepAlive,
    query_timeout: settings.queryTimeoutMs,
    idleTimeoutMillis: idleTimeoutFor(settings.queryTimeoutMs),
  };
  // The server ends a session of these pools that sits in a transaction for longer (a worker frozen or cut off in
  // the middle of one), so its locks (a turn's rows) are not held for a takeover to wait on without end.
  const idleTransaction = `-c idle_in_transaction_session_timeout=${Math.ceil(settings.queryTimeoutMs)}`;
  // The heartbeat's own connection, which no turn's statement holds up (it also queues a turn again whose statement
  // lost its connection, see `handBackLostTurns`); one the database has not answered in
  // a lease is given up (its connection closed; a late answer to one that is kept only slows the next), while the
  // worker stops its effects once its last answered heartbeat is older than `EFFECT_LEASE_SHARE` of a lease.
  const beatTimeoutMs = Math.max(1, settings.leaseMs);
  const beatPool = new pg.Pool({
    connectionString: databaseUrl,
    max: 2,
    application_name,
    connectionTimeoutMillis: beatTimeoutMs,
    query_timeout: beatTimeoutMs,
    ...keepAlive,
    options: check,
    stream: sockets.open,
  });
  const handBack = handBackLostTurns({
    db: beatPool,
    queueName: settings.queueName,
    ...turns,
  });
  const pool = new HandingBackPool(
    {
      connectionString: databaseUrl,
      max: 10,
      application_name,
      ...bounded,
      options: `${idleTransaction} ${check}`,
      stream: sockets.open,
    },
    handBack,
  );
  // Most writes commit without waiting for the disk: the event log, the session history, the steering takes
  // here, and DBOS's own writes (taking a turn from the queue, each step's checkpoint) on the pool below. What
  // waits is what comes before an effect outside the database, on the pool above: a tool call's attempt row
  // (before `execute`), the claim check before a model request that follows other live steps (see
  // `beginLiveStep`), the turn's outcome. Each of those commits makes every commit before it durable too (the
  // write-ahead log is one sequence); a server crash loses only what came after the last one, which the turn
  // then makes again (see the README's "What a step commits").
  const behindCheckpointPool = new HandingBackPool(
    {
      connectionString: databaseUrl,
      max: 5,
      application_name,
      ...bounded,
      options: `-c synchronous_commit=off ${idleTransaction} ${check}`,
      stream: sockets.open,
    },
    handBack,
  );
  const logPool = new pg.Pool({
    connectionString: databaseUrl,
    max: 3,
    application_name,
    ...bounded,
    options: `-c synchronous_commit=off ${idleTransaction} ${check}`,
    stream: sockets.open,
  });
  const dbosPool = new pg.Pool({
    connectionString: databaseUrl,
    max: 10,
    connectionTimeoutMillis: 10_000,
    application_name: `dbos ${settings.workerId}`.slice(0, 63),
    ...keepAlive,
    options: `-c synchronous_commit=off -c idle_in_transaction_session_timeout=60000 ${check}`,
    stream: sockets.open,
  });
  const pools = [pool, behindCheckpointPool, logPool, dbosPool, beatPool];
  for (const each of pools) listenForConnectionErrors(each);
  return { pools, pool, behindCheckpointPool, logPool, dbosPool, beatPool, handBack };
}
