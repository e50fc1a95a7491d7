import { DBOSExecutor } from "@dbos-inc/dbos-sdk/internal/dbos-executor";
import type pg from "pg";
import { quoteIdent } from "../store/schema.js";

/**
 * Keeps this worker's heartbeat in the `workers` table and recovers the
 * turns of workers whose heartbeat is older than the lease.
 *
 * DBOS recovers a workflow only in a process with the same executor id and
 * application version as the one that ran it (at launch), so a restarted
 * worker with the same `workerId` picks its turns up by itself. A worker
 * that never comes back would strand its turns: here the live workers
 * re-enqueue them (DBOS's own recovery, asked for the dead executor's id),
 * and whichever worker dequeues a turn resumes it. A worker that is merely
 * slow for longer than the lease would have its turns run twice at once:
 * choose a lease well above any pause (the default is 15 s).
 */
export class WorkerLease {
  private timer: ReturnType<typeof setInterval> | undefined;
  private ticking = false;
  private readonly table: string;

  constructor(
    private readonly pool: pg.Pool,
    schema: string,
    private readonly workerId: string,
    private readonly leaseMs: number,
  ) {
    this.table = `${quoteIdent(schema)}.workers`;
  }

  /** Writes the first heartbeat, then keeps beating and adopting every quarter lease. */
  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => void this.tick(), Math.max(50, Math.floor(this.leaseMs / 4)));
    this.timer.unref?.();
  }

  /** Stops beating. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Marks this worker's lease as expired, so the other workers recover its
   * interrupted turns at their next look instead of after the lease. Call
   * it once the worker runs nothing any more.
   */
  async release(): Promise<void> {
    await this.pool
      .query(`UPDATE ${this.table} SET heartbeat_at = 'epoch' WHERE executor_id = $1`, [this.workerId])
      .catch(() => {});
  }

  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      await this.beat();
      await this.adoptExpired();
    } catch {
      // Retried at the next tick.
    } finally {
      this.ticking = false;
    }
  }

  private async beat(): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.table} (executor_id, heartbeat_at) VALUES ($1, now()) ON CONFLICT (executor_id) DO UPDATE SET heartbeat_at = now()`,
      [this.workerId],
    );
  }

  private async adoptExpired(): Promise<void> {
    const { rows } = await this.pool.query(
      `DELETE FROM ${this.table} WHERE executor_id <> $1 AND heartbeat_at < now() - make_interval(secs => $2) RETURNING executor_id`,
      [this.workerId, this.leaseMs / 1000],
    );
    const executor = DBOSExecutor.globalInstance;
    if (!executor) return;
    for (const row of rows as { executor_id: string }[]) await executor.recoverPendingWorkflows([row.executor_id]);
  }
}
