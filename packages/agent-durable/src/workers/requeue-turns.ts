import type pg from "pg";
import { DBOS_SYSTEM_SCHEMA, TURN_WORKFLOW_NAME } from "../defaults.js";
import { TERMINAL_ROW } from "../store/schema.js";

/**
 * Queues again the unfinished turns worker `executorId` was running: its
 * pending turn workflows of this application version go back to the turn
 * queue (keeping their session partition), on `db`, in the caller's
 * transaction. This is the statement DBOS 5.3's `resumeWorkflows` runs,
 * with one more condition: the workflow is still pending on that worker
 * when the row is updated. A turn cancelled with DBOS's tools meanwhile
 * (even between a listing and the update) stays cancelled, and is ended as
 * aborted (see `closeCancelledTurn`), never run on. Queueing revokes the
 * claim of the execution that ran each (the next one gets a new ownership
 * token). Idempotent: a turn another worker took up meanwhile is no longer
 * this executor's.
 *
 * Never waits for a lock: a turn whose row another session holds now (a
 * stuck one, or a worker frozen in the middle of a write) is left as it is
 * and counted in `left`, and the caller keeps the dead worker's lease so
 * that a later look queues it; the others are queued at once.
 */
export async function requeueTurnsOf(
  db: pg.PoolClient,
  executorId: string,
  settings: { appVersion: string; queueName: string },
): Promise<{ requeued: number; left: number }> {
  const { rows } = await db.query(
    `WITH pending AS (
       SELECT workflow_uuid FROM "${DBOS_SYSTEM_SCHEMA}".workflow_status
       WHERE executor_id = $2 AND status = 'PENDING' AND name = $3 AND application_version = $4
       FOR UPDATE SKIP LOCKED
     ),
     requeued AS (
       UPDATE "${DBOS_SYSTEM_SCHEMA}".workflow_status w SET ${REQUEUED}
       FROM pending WHERE w.workflow_uuid = pending.workflow_uuid RETURNING 1
     )
     SELECT (SELECT count(*) FROM requeued) AS requeued,
       (SELECT count(*) FROM "${DBOS_SYSTEM_SCHEMA}".workflow_status
        WHERE executor_id = $2 AND status = 'PENDING' AND name = $3 AND application_version = $4) AS pending`,
    [settings.queueName, executorId, TURN_WORKFLOW_NAME, settings.appVersion],
  );
  const requeued = Number(rows[0].requeued);
  // Every sub-statement sees the rows as they were before the update: the pending ones it did not queue were locked.
  return { requeued, left: Number(rows[0].pending) - requeued };
}

/** The assignments of {@link requeueTurnsOf}: the turn goes back to the queue, and the claim on it is revoked. */
const REQUEUED = `status = 'ENQUEUED', owner_xid = NULL, queue_name = $1, recovery_attempts = 0,
  workflow_deadline_epoch_ms = NULL, deduplication_id = NULL, started_at_epoch_ms = NULL,
  updated_at = (EXTRACT(EPOCH FROM now()) * 1000)::bigint, completed_at = NULL`;

/**
 * Queues again, as {@link requeueTurnsOf} does, the unfinished turns of
 * this application version whose worker has no row in `workersTable`: its
 * lease was taken over, and it took them from the queue before its next
 * heartbeat (which a worker the database answers writes within a quarter
 * lease; one that it does not answer cannot run them). The worker that ran
 * such a turn loses its claim, as in a takeover. A turn whose row another
 * session holds now is left for a later look, without waiting.
 */
export async function requeueOrphanedTurns(
  db: pg.Pool,
  workersTable: string,
  settings: { appVersion: string; queueName: string; executorId: string },
): Promise<number> {
  const { rowCount } = await db.query(
    `WITH orphaned AS (
       SELECT workflow_uuid FROM "${DBOS_SYSTEM_SCHEMA}".workflow_status w
       WHERE status = 'PENDING' AND name = $2 AND application_version = $3 AND executor_id <> $4
         AND NOT EXISTS (SELECT 1 FROM ${workersTable} lease WHERE lease.executor_id = w.executor_id)
       FOR UPDATE OF w SKIP LOCKED
     )
     UPDATE "${DBOS_SYSTEM_SCHEMA}".workflow_status w SET ${REQUEUED}
     FROM orphaned WHERE w.workflow_uuid = orphaned.workflow_uuid`,
    [settings.queueName, TURN_WORKFLOW_NAME, settings.appVersion, settings.executorId],
  );
  return rowCount ?? 0;
}

/**
 * How many turns worker `executorId` runs whose own terminal status is in
 * the event log (of `settings.schema`) while DBOS still has their workflow
 * pending: executions that have only their outcome left to record.
 */
export async function endedTurnsPendingOf(
  db: Pick<pg.Pool, "query">,
  executorId: string,
  settings: { appVersion: string; schema: string },
): Promise<number> {
  const { rows } = await db.query(
    `SELECT count(*) AS ended FROM "${DBOS_SYSTEM_SCHEMA}".workflow_status w
     WHERE executor_id = $1 AND status = 'PENDING' AND name = $2 AND application_version = $3
       AND EXISTS (SELECT 1 FROM ${settings.schema}.events WHERE turn_key = w.workflow_uuid AND ${TERMINAL_ROW})`,
    [executorId, TURN_WORKFLOW_NAME, settings.appVersion],
  );
  return Number(rows[0].ended);
}

/**
 * Queues again, as {@link requeueTurnsOf} does, one turn whose execution
 * holding `token` lost its connection under a statement: its claim is
 * revoked, and any worker (this one too) takes the turn up and replays it
 * from its records. Resolves to `true` once the turn is no longer that
 * execution's (queued now, or found queued, taken over or ended
 * meanwhile), `false` when another session holds its row now (a statement
 * of the same execution still running on a connection the server has not
 * yet found gone): call again a little later. Never waits for a lock.
 */
export async function requeueLostTurn(
  db: Pick<pg.Pool, "query">,
  claim: { turnKey: string; token: string },
  settings: { queueName: string },
): Promise<boolean> {
  const { rows } = await db.query(
    `WITH owned AS (
       SELECT workflow_uuid FROM "${DBOS_SYSTEM_SCHEMA}".workflow_status
       WHERE workflow_uuid = $2 AND owner_xid = $3 AND status = 'PENDING'
       FOR UPDATE SKIP LOCKED
     ),
     requeued AS (
       UPDATE "${DBOS_SYSTEM_SCHEMA}".workflow_status w SET ${REQUEUED}
       FROM owned WHERE w.workflow_uuid = owned.workflow_uuid RETURNING 1
     )
     SELECT (SELECT count(*) FROM requeued) AS requeued,
       EXISTS (SELECT 1 FROM "${DBOS_SYSTEM_SCHEMA}".workflow_status
         WHERE workflow_uuid = $2 AND owner_xid = $3 AND status = 'PENDING') AS owned`,
    [settings.queueName, claim.turnKey, claim.token],
  );
  // The sub-statements see the row as it was before the update: owned and not queued means locked.
  return Number(rows[0].requeued) > 0 || rows[0].owned !== true;
}

/**
 * The condition on a `dbos.workflow_status` row that its execution began
 * (DBOS took the turn from the queue, setting `started_at_epoch_ms` by the
 * server's clock) before the server last started.
 */
const STARTED_BEFORE_SERVER_START = `started_at_epoch_ms <= (extract(epoch FROM pg_postmaster_start_time()) * 1000)::bigint`;

/**
 * Queues again every unfinished turn (of this deployment) whose execution
 * began before the server last started, revoking its claim, when the
 * worker running it has beaten since (in `workersTable`, quoted): it runs,
 * and an execution of it may have returned already. A crash of the server loses the commits made without waiting
 * for the disk since the last one that waited, DBOS's own among them: the
 * end of a turn's workflow recorded just before the crash is lost, and the
 * turn is pending again under an execution that has already returned, in a
 * worker whose lease lives on, so nothing would ever run it again (its
 * `outcome` waited for ever). Queued again, it runs from its records (a
 * replay returns the outcome it recorded). A worker that has not beaten
 * since the server started (frozen, or dead) keeps its turns until its
 * lease expires, as any lease: queueing the turns of a process frozen
 * across the restart at once would let it send, when it wakes up, a
 * request it had checked its claim for. Resolves to how many. Waits for
 * no lock (a row another session holds is left for the next call).
 * Idempotent.
 */
export async function requeueTurnsFromBeforeServerStart(
  db: Pick<pg.Pool, "query">,
  workersTable: string,
  settings: { appVersion: string; queueName: string },
): Promise<number> {
  const { rowCount } = await db.query(
    `WITH stale AS (
       SELECT workflow_uuid FROM "${DBOS_SYSTEM_SCHEMA}".workflow_status w
       WHERE status = 'PENDING' AND name = $2 AND application_version = $3 AND ${STARTED_BEFORE_SERVER_START}
         AND EXISTS (SELECT 1 FROM ${workersTable} lease
                     WHERE lease.executor_id = w.executor_id AND lease.heartbeat_at > pg_postmaster_start_time())
       FOR UPDATE OF w SKIP LOCKED
     )
     UPDATE "${DBOS_SYSTEM_SCHEMA}".workflow_status w SET ${REQUEUED}
     FROM stale WHERE w.workflow_uuid = stale.workflow_uuid`,
    [settings.queueName, TURN_WORKFLOW_NAME, settings.appVersion],
  );
  return rowCount ?? 0;
}
