import type pg from "pg";
import { DBOS_SYSTEM_SCHEMA, PRESENCE_RETRY_MS } from "../defaults.js";
import { inTransaction } from "../store/transaction.js";
import { launchesOfWorkerSql } from "./executor-id.js";

/**
 * The advisory lock (two keys: this constant's hash and the executor id's)
 * that a launch holds on a connection of its own for as long as it runs:
 * once its process is gone (killed, crashed), the server ends that
 * connection and the lock is free; while the process lives, even frozen,
 * it is held.
 */
const PRESENCE_LOCK = (executorIdSql: string) => `hashtext('turnkit-durable-launch'), hashtext(${executorIdSql})`;

/**
 * Holds this launch's presence lock (see {@link PRESENCE_LOCK}) on a
 * connection taken from `pool` for the launch's life. A connection the
 * server ended (a restart, a failover, `pg_terminate_backend`) loses the
 * lock: it is taken again on a new one at once, and again, at growing
 * intervals up to {@link PRESENCE_RETRY_MS}, until it is held (and at each
 * {@link hold}).
 * While it is free, a launch of the same worker id takes this live one for
 * gone and its turns over at once, so the time without it must be short
 * (before, it was taken again only at the next heartbeat, a quarter lease
 * later). Never throws: without the lock a launch of the same
 * worker id waits for this one's lease to expire instead of taking it over
 * at once, which is only slower.
 */
export class LaunchPresence {
  private holder: pg.PoolClient | undefined;
  private taking: Promise<void> | undefined;
  private released = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly executorId: string,
  ) {}

  /** Takes the lock when this launch does not hold it (at launch, and again after its connection was lost). */
  async hold(): Promise<void> {
    if (this.holder !== undefined || this.released) return;
    this.taking ??= this.take().finally(() => {
      this.taking = undefined;
    });
    await this.taking;
  }

  /** Gives the lock and its connection up (the launch shuts down or gave up). */
  release(): void {
    this.released = true;
    this.holder?.release(true);
    this.holder = undefined;
  }

  /**
   * Takes the lock again after its connection was lost, trying until it is held or released: at once, then
   * after 10 ms, doubling up to {@link PRESENCE_RETRY_MS}. The server frees the lock only once the ended
   * session's process exits, a moment after the connection reported its end (longer on a loaded server).
   */
  private async retake(): Promise<void> {
    let pause = 10;
    while (this.holder === undefined && !this.released) {
      await this.hold();
      if (this.holder !== undefined) return;
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, PRESENCE_RETRY_MS);
    }
  }

  private async take(): Promise<void> {
    let giveUp = () => {};
    try {
      const taken = await this.pool.connect();
      // A connection that fails while the lock is taken is given up by its error event and by the failed
      // statement both: once (pg-pool throws on a second release, which would end the process).
      let given = false;
      giveUp = () => {
        if (given) return;
        given = true;
        taken.release(true);
      };
      taken.on("error", () => {
        giveUp();
        if (this.holder !== taken) return;
        this.holder = undefined;
        void this.retake();
      });
      const { rows } = await taken.query(`SELECT pg_try_advisory_lock(${PRESENCE_LOCK("$1")}) AS held`, [
        this.executorId,
      ]);
      if (this.released || rows[0]?.held !== true) giveUp();
      else this.holder = taken;
    } catch {
      giveUp();
    }
  }
}

/**
 * Takes over, in one transaction on `pool`, the leases in `workersTable`
 * of worker `workerId`'s earlier launches whose process is gone (no
 * connection holds its presence lock) and that beat since the server
 * started, however recently: their turns are queued again at once
 * (`requeueTurnsOf`, as a takeover does) and their rows dropped; so are
 * the pending turns of earlier launches that have no row (gone, and their
 * process too). The turns still named after the bare id (before launches
 * had ids of their own) are queued again too. A launch whose process still
 * lives (frozen, or its connection not yet ended) is left to expire like
 * any lease: queueing its turns before its lease expired would let it send
 * a request that the next owner sends again. So is one whose last
 * heartbeat is older than the server: a restart ended every connection,
 * and a process frozen across it has not taken its lock again, so a free
 * lock says nothing about it. Waits for no lock: a row another session
 * holds is left as well. Resolves to whether a lease of an earlier launch
 * is left (its process lives, or the server has not yet ended its
 * connection after it died, or it last beat before the server started):
 * the caller looks again later.
 */
export async function adoptEarlierLaunches(
  pool: pg.Pool,
  workersTable: string,
  ids: { workerId: string; executorId: string },
  requeueTurnsOf: (db: pg.PoolClient, executorId: string) => Promise<{ requeued: number; left: number }>,
): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    // A launch whose last heartbeat is older than the server may live on: the server's restart ended its
    // connections, and a process frozen across it has not taken its lock again.
    const { rows } = await client.query(
      `SELECT executor_id FROM ${workersTable} WHERE ${launchesOfWorkerSql(1)} AND executor_id <> $2
         AND heartbeat_at > pg_postmaster_start_time()
         AND pg_try_advisory_xact_lock(${PRESENCE_LOCK("executor_id")})
       FOR UPDATE SKIP LOCKED`,
      [ids.workerId, ids.executorId],
    );
    // Also the earlier launches that have no lease row any more (one that shut down handed its turns back and
    // dropped its row; a turn set pending again by hand) and still have pending turns.
    const { rows: orphaned } = await client.query(
      `SELECT DISTINCT executor_id FROM "${DBOS_SYSTEM_SCHEMA}".workflow_status
       WHERE status = 'PENDING' AND ${launchesOfWorkerSql(1)} AND executor_id <> $2
         AND NOT EXISTS (SELECT 1 FROM ${workersTable} lease WHERE lease.executor_id = workflow_status.executor_id)
         AND pg_try_advisory_xact_lock(${PRESENCE_LOCK("executor_id")})`,
      [ids.workerId, ids.executorId],
    );
    const gone = new Set([
      ids.workerId,
      ...[...rows, ...orphaned].map((row: { executor_id: string }) => row.executor_id),
    ]);
    for (const each of gone) {
      const { left } = await requeueTurnsOf(client, each);
      if (left === 0) await client.query(`DELETE FROM ${workersTable} WHERE executor_id = $1`, [each]);
    }
    const { rows: remaining } = await client.query(
      `SELECT 1 FROM ${workersTable} WHERE ${launchesOfWorkerSql(1)} AND executor_id <> $2 LIMIT 1`,
      [ids.workerId, ids.executorId],
    );
    return remaining.length > 0;
  });
}
