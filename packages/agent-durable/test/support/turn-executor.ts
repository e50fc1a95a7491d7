import pg from "pg";
import type { DurableTurnRef } from "../../src/index.js";
import { waitFor } from "./worker-cluster.js";

/** The launch (DBOS executor) that `turn` is on now, in the database at `databaseUrl`. */
export async function executorOf(databaseUrl: string, turn: DurableTurnRef): Promise<string> {
  const { rows } = await withDatabase(databaseUrl, (db) =>
    db.query("SELECT executor_id FROM dbos.workflow_status WHERE workflow_uuid = $1", [turn.workflowId]),
  );
  return (rows[0] as { executor_id: string }).executor_id;
}

/**
 * Resolves once `turn` is no longer pending on launch `executorId` (queued again, taken up by another launch, or
 * ended), to the server's clock then (ms since the epoch); rejects naming the launch after `withinMs`. What a test
 * bounds when it checks that a turn was taken over or handed back: how long the turn then takes to run to its end
 * depends on the machine's load, not on the takeover.
 */
export async function leftLaunch(
  databaseUrl: string,
  turn: DurableTurnRef,
  executorId: string,
  withinMs: number,
): Promise<number> {
  let leftAtMs = 0;
  await withDatabase(databaseUrl, (db) =>
    waitFor(
      `${turn.turnId} no longer ${executorId}'s`,
      async () => {
        const { rows } = await db.query(
          `SELECT extract(epoch FROM now()) * 1000 AS now_ms FROM dbos.workflow_status
           WHERE workflow_uuid = $1 AND (status <> 'PENDING' OR executor_id <> $2)`,
          [turn.workflowId, executorId],
        );
        leftAtMs = Number((rows[0] as { now_ms: string } | undefined)?.now_ms ?? 0);
        return rows.length === 1;
      },
      withinMs,
    ),
  );
  return leftAtMs;
}

/**
 * Resolves once `turn` is no longer pending under an execution that began before the database server last started
 * (queued again since, taken up again since, or ended), to how many ms that took; rejects after `withinMs`. What a
 * test bounds when it checks that a turn whose end a crash of the server lost is run again: not how long that run
 * then takes on a loaded machine.
 */
export async function queuedAgainSinceServerStart(
  databaseUrl: string,
  turn: DurableTurnRef,
  withinMs: number,
): Promise<number> {
  const startedAt = performance.now();
  await withDatabase(databaseUrl, (db) =>
    waitFor(
      `${turn.turnId} queued again since the server started`,
      async () => {
        const { rows } = await db.query(
          `SELECT 1 FROM dbos.workflow_status WHERE workflow_uuid = $1 AND (status <> 'PENDING'
             OR started_at_epoch_ms IS NULL OR started_at_epoch_ms > extract(epoch FROM pg_postmaster_start_time()) * 1000)`,
          [turn.workflowId],
        );
        return rows.length === 1;
      },
      withinMs,
    ),
  );
  return performance.now() - startedAt;
}

async function withDatabase<T>(databaseUrl: string, use: (db: pg.Client) => Promise<T>): Promise<T> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    return await use(db);
  } finally {
    await db.end();
  }
}
