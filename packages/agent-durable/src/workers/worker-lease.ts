// Why this file is long: one lease's state (heartbeats, the looks for expired and earlier launches, the fence of effects, the release at shutdown) is read by all of its parts.
import { performance } from "node:perf_hooks";
import type pg from "pg";
import { EFFECT_LEASE_SHARE, LEASE_CHECK_MAX_INTERVAL_MS } from "../defaults.js";
import { DurableTurnError, DurableTurnErrorCode } from "../errors.js";
import { quoteIdent } from "../store/schema.js";
import { inTransaction } from "../store/transaction.js";
import { adoptEarlierLaunches, LaunchPresence } from "./earlier-launches.js";
import { crashIfArmed, isArmed } from "./fault-point.js";

/** What a {@link WorkerLease} needs to know and do. */
export interface WorkerLeaseOptions {
  /** Where expired leases are looked for and taken over. */
  pool: pg.Pool;
  /**
   * Where the heartbeat is written: a pool of its own, so the turns'
   * statements never hold it up, whose statements give up (`query_timeout`)
   * after a lease, so a connection the database stopped answering is
   * replaced rather than waited on.
   */
  beatPool: pg.Pool;
  schema: string;
  /** The worker's id, the same at every launch. */
  workerId: string;
  /** This launch's executor id (see `launchExecutorId`): the key of its lease row. */
  executorId: string;
  leaseMs: number;
  /**
   * How long the first heartbeat of a launch keeps trying when the
   * database is slow to accept a connection (each try gives up after a
   * lease): a loaded server must not fail a launch because one connection
   * took longer than a lease.
   */
  connectTimeoutMs: number;
  /**
   * Queues the unfinished turns that worker `executorId` was running again,
   * so any live worker takes them up; resolves to how many. Runs on `db`,
   * in the transaction that holds the dead worker's row, so both commit or
   * neither. Must be idempotent: after a crash of the adopting worker,
   * another one calls it again for the same dead worker. Must not wait for
   * a lock: `left` counts the turns it could not queue now (another session
   * holds their rows), for which the dead worker's row is kept, so a later
   * look queues them.
   */
  requeueTurnsOf(db: pg.PoolClient, executorId: string): Promise<{ requeued: number; left: number }>;
  /**
   * Queues again the unfinished turns of workers that have no lease row
   * (`workersTable`, quoted): a worker whose lease was taken over while it
   * still ran, and whose heartbeats the database does not answer, may take
   * turns from the queue that it cannot run and that no lease names.
   * Resolves to how many. Must be idempotent.
   */
  requeueOrphanedTurns(db: pg.Pool, workersTable: string): Promise<number>;
  /**
   * Queues again the unfinished turns whose execution began before the
   * server last started (a crash of the server may have lost their
   * workflow's end, or what they wrote since their last commit that
   * waited) and whose worker has beaten since (in `workersTable`, quoted),
   * revoking their claims. Resolves to how many. Must be idempotent.
   */
  requeueTurnsFromBeforeServerStart(db: pg.Pool, workersTable: string): Promise<number>;
  /** A test-only crash point (see `fault-point.ts`), or undefined. */
  faultPoint?: string;
}

/**
 * Keeps this worker's heartbeat in the `workers` table and takes over the
 * leases of workers whose heartbeat is older than the lease.
 *
 * Each launch has a lease of its own (keyed by its executor id, see
 * `launchExecutorId`) and takes over its worker id's earlier launches'
 * at once when their process is gone ({@link acquire}); one whose process
 * still lives (frozen) keeps its lease until it expires. A worker that never
 * comes back would strand its turns: the live workers look for expired
 * leases when the next one expires (and at least every
 * {@link LEASE_CHECK_MAX_INTERVAL_MS}, or a quarter lease when shorter),
 * and one of them takes each over.
 *
 * Taking over is retried from durable state until it is complete: the
 * adopting worker locks the dead worker's row, queues its turns again, and
 * deletes the row in the same transaction. If the adopter dies in between,
 * the transaction is rolled back, the row stays, and the next worker that
 * looks does it all again (queueing again is idempotent).
 *
 * Queueing a turn again revokes the claim of the execution that was
 * running it (see `TurnClaim`), so a worker that was only paused, not dead,
 * can no longer write anything for those turns when it wakes up (its
 * abort watcher stops them within ~150 ms); it goes on taking new turns
 * with a fresh lease.
 *
 * The lease also fences this worker's effects: a model request is sent,
 * a host hook is called, and a tool runs, only while a heartbeat sent within the last three quarters of a lease
 * carried the lease on ({@link coversEffect}), so no takeover can come
 * for another quarter lease; a worker whose heartbeats the database does not
 * answer (a paused server, a network that drops everything, a heartbeat
 * late behind a load) waits instead ({@link renew}). A worker judges
 * another's lease expired only once the database has answered its own
 * heartbeats for three quarters of a lease without a gap: after the
 * database itself stopped answering for a while, every worker gets at
 * least two chances to beat again before anyone takes its turns over; a
 * look whose answer took longer than a quarter lease takes nothing over.
 */
export class WorkerLease {
  private beatTimer: ReturnType<typeof setInterval> | undefined;
  private checkTimer: ReturnType<typeof setTimeout> | undefined;
  private beating: Promise<void> | undefined;
  private running = false;
  private isStopped = false;
  /** When (`performance.now()`) the last heartbeat that carried this lease on was sent. */
  private renewedAt = Number.NEGATIVE_INFINITY;
  /** When this worker last found its lease row gone (taken over) and wrote a new one. */
  private lostAt = Number.NEGATIVE_INFINITY;
  /** When the last heartbeat was answered, and since when they have been answered without a gap. */
  private answeredAt = Number.NEGATIVE_INFINITY;
  private answeringSince = Number.POSITIVE_INFINITY;
  /** When the first heartbeat was sent (for the test-only fault point). */
  private acquiredAt: number | undefined;
  private readonly table: string;

  /** Tells a later launch of this worker id whether this process still lives. */
  private readonly presence: LaunchPresence;
  /** A lease of an earlier launch of this worker id was left at the last look (its process lived then). */
  private earlierLaunchesLeft = false;

  constructor(private readonly options: WorkerLeaseOptions) {
    this.table = `${quoteIdent(options.schema)}.workers`;
    this.presence = new LaunchPresence(options.pool, options.executorId);
  }

  /**
   * Writes the first heartbeat (trying again while the database is slow to
   * accept a connection, until `connectTimeoutMs`) and keeps beating every
   * quarter lease from then on; then takes over this worker id's earlier launches whose
   * process is gone (see `adoptEarlierLaunches`). Call it
   * before the worker takes turns, so that no turn ever runs here without a
   * lease that can be taken over, and while it launches its lease stays
   * fresh: a launch slower than the lease must not look like a dead worker.
   */
  async acquire(): Promise<void> {
    const giveUpAt = performance.now() + this.options.connectTimeoutMs;
    for (;;) {
      try {
        await this.writeBeat();
        break;
      } catch (error) {
        if (!isConnectTimeout(error) || this.isStopped || performance.now() >= giveUpAt) throw error;
      }
    }
    // Stopped meanwhile (a launch that gave up): no beating after that.
    if (this.isStopped) return;
    // A renewal refused because the lease stopped meanwhile needs no answer.
    const renewQuietly = () => void this.renew().catch(() => undefined);
    this.beatTimer ??= setInterval(renewQuietly, Math.max(20, Math.floor(this.options.leaseMs / 4)));
    this.beatTimer.unref?.();
    await this.presence.hold();
    await this.adoptEarlierLaunches();
  }

  /**
   * Takes over this worker id's earlier launches whose process is gone (see
   * `adoptEarlierLaunches`) and notes whether one is left: a process killed
   * right before this launch may still hold its connection (the server ends
   * it once it notices), so each later look tries again while one is left.
   */
  private async adoptEarlierLaunches(): Promise<void> {
    const { pool, workerId, executorId, requeueTurnsOf } = this.options;
    this.earlierLaunchesLeft = await adoptEarlierLaunches(pool, this.table, { workerId, executorId }, requeueTurnsOf);
  }

  /**
   * Looks for expired leases of other workers when the next one expires (at
   * most every {@link LEASE_CHECK_MAX_INTERVAL_MS}, or a quarter lease when
   * shorter), once DBOS is launched (taking a lease over queues turns
   * again through it). Beating started with {@link acquire}.
   */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.scheduleCheck(this.longestCheckPause());
  }

  /**
   * Whether this worker may start an effect outside the database (send a
   * model request, run a tool) for a turn whose claim was confirmed at
   * `confirmedAt` (`performance.now()`, as the check was sent): the lease
   * was carried on by a heartbeat sent within the last three quarters of a
   * lease, so no other worker can take this one's turns over for at least
   * another quarter lease, and the confirmation came after the last time this worker
   * found its lease taken over (one from before may be of a turn that was
   * queued again meanwhile). Never once the lease was stopped (the worker
   * shuts down and hands its turns back). A synchronous look, made right
   * before the effect.
   */
  coversEffect(confirmedAt: number): boolean {
    return !this.isStopped && confirmedAt > this.lostAt && this.isFresh();
  }

  /** True once {@link stop} was called: the worker shuts down, and no effect may start any more. */
  get stopped(): boolean {
    return this.isStopped;
  }

  /** Whether a heartbeat sent within the last three quarters of a lease carried the lease on. */
  isFresh(): boolean {
    return performance.now() - this.renewedAt <= this.options.leaseMs * EFFECT_LEASE_SHARE;
  }

  /**
   * Writes a heartbeat now, or waits for the one already on its way (a
   * caller that needs a fresh lease looks at {@link isFresh} first); resolves once it was
   * answered or failed (a failed heartbeat is no rejection). Rejects only
   * with `worker_state`, once the lease was stopped (the worker shuts
   * down): nothing may wait on it then.
   */
  async renew(): Promise<void> {
    if (this.isStopped)
      throw new DurableTurnError({
        code: DurableTurnErrorCode.WorkerState,
        message: `worker ${this.options.workerId} shut down: its lease is no longer kept`,
      });
    this.beating ??= this.writeBeat()
      .catch(() => {
        // The database did not answer in time: the lease ages, and the next renewal tries again.
        this.answeringSince = Number.POSITIVE_INFINITY;
      })
      .finally(() => {
        this.beating = undefined;
      });
    // Taken again when the connection that held it was lost.
    void this.presence.hold();
    await this.beating;
  }

  /**
   * Stops beating and looking. The presence lock stays held until
   * {@link leave}: while the worker still waits for its turns' endings and
   * hands its turns back, a launch of the same worker id must not take this
   * live one for gone and queue them again.
   */
  stop(): void {
    this.running = false;
    this.isStopped = true;
    if (this.beatTimer) clearInterval(this.beatTimer);
    if (this.checkTimer) clearTimeout(this.checkTimer);
    this.beatTimer = undefined;
    this.checkTimer = undefined;
  }

  /** Gives the presence lock up: the launch handed its turns back, or gave up launching. Safe to call twice. */
  leave(): void {
    this.presence.release();
  }

  /**
   * Hands this launch's turns back, in one transaction: queues its
   * unfinished turns again (which revokes the claims of the executions
   * running them here: they write nothing more) and drops its lease row; a
   * turn whose row another session holds now is left, with the row marked
   * expired, for the other workers' next look. Call it when the worker
   * shuts down, after {@link stop}. Never throws.
   */
  async release(): Promise<void> {
    const { pool, executorId, requeueTurnsOf } = this.options;
    await inTransaction(pool, async (client) => {
      const { left } = await requeueTurnsOf(client, executorId);
      const done = left === 0 ? "DELETE FROM" : "UPDATE";
      await client.query(
        `${done} ${this.table} ${left === 0 ? "" : "SET heartbeat_at = 'epoch'"} WHERE executor_id = $1`,
        [executorId],
      );
    }).catch(() => {});
  }

  /** Takes over every expired lease this worker can lock now; resolves to how many turns it queued again. */
  async adoptExpired(): Promise<number> {
    return (await this.lookAndAdopt()).requeued;
  }

  /**
   * Takes over every expired lease this worker can lock now; also tells in
   * how many ms the next lease of another worker expires (server clock), if
   * any is left.
   */
  private async lookAndAdopt(): Promise<{ requeued: number; nextExpiryMs: number | undefined }> {
    const { pool, executorId, leaseMs } = this.options;
    const nothing = { requeued: 0, nextExpiryMs: undefined };
    if (!this.sawDatabaseLongEnough()) return nothing;
    const sentAt = performance.now();
    const { rows } = await pool.query(
      `SELECT executor_id, extract(epoch FROM heartbeat_at + make_interval(secs => $2) - now()) * 1000 AS ms_left
       FROM ${this.table} WHERE executor_id <> $1`,
      [executorId, leaseMs / 1000],
    );
    // An answer that was long in coming may be from a database that stopped answering meanwhile (the other workers
    // could not beat either), as may one after a heartbeat of this worker went unanswered: look again later.
    if (performance.now() - sentAt > leaseMs / 4 || !this.sawDatabaseLongEnough()) return nothing;
    let requeued = 0;
    let nextExpiryMs: number | undefined;
    for (const row of rows as { executor_id: string; ms_left: string }[]) {
      const msLeft = Number(row.ms_left);
      if (msLeft < 0) requeued += await this.adopt(row.executor_id);
      else nextExpiryMs = Math.min(nextExpiryMs ?? msLeft, msLeft);
    }
    requeued += await this.options.requeueOrphanedTurns(pool, this.table);
    return { requeued, nextExpiryMs };
  }

  /** The longest pause between two looks: a quarter lease, at most {@link LEASE_CHECK_MAX_INTERVAL_MS}. */
  private longestCheckPause(): number {
    return Math.max(20, Math.min(LEASE_CHECK_MAX_INTERVAL_MS, Math.floor(this.options.leaseMs / 4)));
  }

  private scheduleCheck(afterMs: number): void {
    if (!this.running) return;
    this.checkTimer = setTimeout(() => void this.check(), afterMs);
    this.checkTimer.unref?.();
  }

  /** One look; the next comes when the next lease expires (a little after), or after the longest pause. */
  private async check(): Promise<void> {
    let next = this.longestCheckPause();
    try {
      // At every look: a crash of the server may have lost what the turns begun before it wrote, their end included.
      await this.options.requeueTurnsFromBeforeServerStart(this.options.pool, this.table);
      if (this.earlierLaunchesLeft) await this.adoptEarlierLaunches();
      const { nextExpiryMs } = await this.lookAndAdopt();
      if (nextExpiryMs !== undefined) next = Math.min(next, Math.max(20, Math.ceil(nextExpiryMs) + 5));
    } catch {
      // Retried at the next look: the dead worker's row stays until its turns are queued again.
    }
    this.scheduleCheck(next);
  }

  /**
   * One heartbeat. After a takeover (this worker stalled past its lease, or
   * its database did not answer it) the row is gone: this inserts a fresh
   * lease, and the claims confirmed before must be confirmed again.
   */
  private async writeBeat(): Promise<void> {
    const { beatPool, executorId, leaseMs, faultPoint } = this.options;
    const sentAt = performance.now();
    this.acquiredAt ??= sentAt;
    if (
      sentAt > this.acquiredAt &&
      sentAt < this.acquiredAt + 6 * leaseMs &&
      isArmed("heartbeats-unanswered", faultPoint)
    )
      throw new Error("test fault: the heartbeat went unanswered");
    const { rows } = await beatPool.query(
      `INSERT INTO ${this.table} (executor_id, heartbeat_at) VALUES ($1, now())
       ON CONFLICT (executor_id) DO UPDATE SET heartbeat_at = now()
       RETURNING (xmax = 0) AS inserted`,
      [executorId],
    );
    const answeredAt = performance.now();
    // A gap that long: this process, or the database, was silent; a new run of answers begins.
    if (answeredAt - this.answeredAt > leaseMs * EFFECT_LEASE_SHARE) this.answeringSince = answeredAt;
    this.answeredAt = answeredAt;
    if ((rows[0] as { inserted: boolean }).inserted) this.lostAt = answeredAt;
    this.renewedAt = Math.max(this.renewedAt, sentAt);
  }

  /**
   * Whether the database has answered this worker's heartbeats for three
   * quarters of a lease without a gap that long (as long as a pause of the
   * database must be to let another worker's lease expire under it): only
   * then may it judge another worker's lease expired, after the others had
   * at least two chances to beat. A database that stopped answering everyone for a while (a
   * paused server) leaves every heartbeat old when it answers again; a
   * worker that took the others' leases over at once would queue again
   * turns whose workers are alive and were only waiting for it, sending
   * their model requests twice.
   */
  private sawDatabaseLongEnough(): boolean {
    return performance.now() - this.answeringSince >= this.options.leaseMs * EFFECT_LEASE_SHARE;
  }

  /**
   * Takes over one expired lease: lock its row (skipped when another worker
   * holds it, or when the worker beat again meanwhile), queue its turns
   * again, drop the row, all in one transaction. Waits for no lock: turns
   * whose rows another session holds are left, with the row, for a later look.
   */
  private async adopt(executorId: string): Promise<number> {
    const { pool, leaseMs, requeueTurnsOf, faultPoint } = this.options;
    return inTransaction(pool, async (client) => {
      const { rows } = await client.query(
        `SELECT 1 FROM ${this.table}
         WHERE executor_id = $1 AND heartbeat_at < now() - make_interval(secs => $2)
         FOR UPDATE SKIP LOCKED`,
        [executorId, leaseMs / 1000],
      );
      if (rows.length === 0) return 0;
      crashIfArmed("adoption-before-requeue", faultPoint);
      const { requeued, left } = await requeueTurnsOf(client, executorId);
      crashIfArmed("adoption-after-requeue", faultPoint);
      // A turn whose row another session holds (a stuck one) waits for a later look; the others go now.
      if (left === 0) await client.query(`DELETE FROM ${this.table} WHERE executor_id = $1`, [executorId]);
      return requeued;
    });
  }
}

/** A connection the pool gave up waiting for (the database was slow to accept it), as `pg-pool` words it. */
function isConnectTimeout(error: unknown): boolean {
  const message = error instanceof Error ? error.message : "";
  return message.includes("due to connection timeout") || message.includes("timeout exceeded when trying to connect");
}
