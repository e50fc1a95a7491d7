import { performance } from "node:perf_hooks";
import { currentOwnerXid } from "@dbos-inc/dbos-sdk/internal/context";
import type pg from "pg";
import { DBOS_SYSTEM_SCHEMA } from "../defaults.js";
import { DurableTurnError, DurableTurnErrorCode } from "../errors.js";
import { inTransaction } from "./transaction.js";

/**
 * The claim one execution of a turn holds on it: the ownership token DBOS
 * gave that execution when a worker took the turn from the queue. When the
 * worker's lease is taken over, its turns are queued again and DBOS revokes
 * their tokens (a new execution gets a new one), so a worker that was only
 * paused, not dead, finds its claim gone when it wakes up.
 *
 * Every write of an execution carries its claim and is made in the same
 * statement as a check that the claim still holds, locking the turn's
 * workflow row against a concurrent takeover (see {@link claimCte} and {@link inClaimedTransaction}). A
 * write the claim no longer covers changes nothing, fires {@link revoked}
 * and throws a `superseded` error, and the execution stops.
 *
 * A claim also holds only while the step records the execution stored or
 * read since its last commit that waited for the disk are still in the
 * database ({@link noteRecords}, {@link noteDurable}): a crash of the
 * database server loses the commits made without waiting since then, and
 * an execution that goes on after such a crash could act on an answer the
 * turn's records no longer hold (run the tool call a lost model request
 * asked for, which the next execution, sending the request again, may ask
 * for anew). Its writes are refused as a superseded execution's are, and
 * the turn, queued again once its worker beats (see
 * `requeueTurnsFromBeforeServerStart`), replays from what the database kept.
 *
 * Relies on DBOS 5.3 internals, pinned by version and tested by
 * `test/turn-claim.test.ts`: the token of the running execution
 * (`currentOwnerXid`) and the `owner_xid` column of `dbos.workflow_status`,
 * which DBOS itself checks before it records a step or an outcome.
 */
export class TurnClaim {
  private readonly revocation = new AbortController();
  /**
   * When (`performance.now()`, taken as the statement was sent) a check or
   * write last found the claim held; see {@link isFresh}.
   */
  private confirmedAt = Number.NEGATIVE_INFINITY;
  /**
   * The step records (by position) this execution stored or read that may
   * not be on disk yet, each with when (`performance.now()`) the statement
   * that stored or read it answered.
   */
  private readonly recordsNotOnDisk = new Map<number, number>();

  constructor(
    /** The turn's key (its workflow id). */
    readonly turnKey: string,
    /** DBOS's ownership token of the execution. */
    readonly token: string,
  ) {}

  /** The claim of the execution running in this async context (inside the turn's workflow). */
  static current(turnKey: string): TurnClaim {
    const token = currentOwnerXid(turnKey);
    if (token === undefined)
      throw new Error(`no DBOS execution of ${turnKey} runs here: a turn claim exists only inside its workflow`);
    return new TurnClaim(turnKey, token);
  }

  /** Fires once a write found the claim revoked; the execution must stop. */
  get revoked(): AbortSignal {
    return this.revocation.signal;
  }

  /**
   * Whether a check or write found the claim held within the last
   * `maxAgeMs`, by this process's clock now. A synchronous look: made right
   * before an effect with no wait in between, a stall that came after the
   * last check shows here as a confirmation too old.
   */
  isFresh(maxAgeMs: number): boolean {
    return performance.now() - this.confirmedAt <= maxAgeMs;
  }

  /** When (`performance.now()`, as it was sent) a check or write last found the claim held; -Infinity before. */
  get lastConfirmedAt(): number {
    return this.confirmedAt;
  }

  /** A check or write sent at `sentAt` (`performance.now()`) found the claim held. */
  confirm(sentAt: number): void {
    this.confirmedAt = Math.max(this.confirmedAt, sentAt);
  }

  /**
   * This execution stored (or read) the step records at `positions`, in a
   * statement that answered at `answeredAt` (`performance.now()`): from now
   * on the claim holds only while they are in the database, until a commit
   * that waited for the disk covers them ({@link noteDurable}).
   */
  noteRecords(positions: Iterable<number>, answeredAt: number): void {
    for (const position of positions) this.recordsNotOnDisk.set(position, answeredAt);
  }

  /**
   * A statement of this execution sent at `sentAt` (`performance.now()`)
   * committed and waited for the disk: every commit answered before it was
   * sent is on disk too (the write-ahead log is one sequence).
   */
  noteDurable(sentAt: number): void {
    for (const [position, answeredAt] of this.recordsNotOnDisk)
      if (answeredAt <= sentAt) this.recordsNotOnDisk.delete(position);
  }

  /**
   * A SQL condition (`AND ...`, or nothing) that holds while the step
   * records noted by {@link noteRecords} and not yet on disk are in the
   * database; `$turnKeyParam` is the turn key's parameter.
   */
  recordsKeptSql(turnKeyParam: number): string {
    if (this.recordsNotOnDisk.size === 0) return "";
    // Positions are integers this process counted: written into the statement as they are.
    const positions = [...this.recordsNotOnDisk.keys()].map((position) => String(Math.trunc(position))).join(", ");
    return ` AND (SELECT count(*) FROM "${DBOS_SYSTEM_SCHEMA}".operation_outputs
      WHERE workflow_uuid = $${turnKeyParam} AND function_id IN (${positions})) = ${this.recordsNotOnDisk.size}`;
  }

  /** Marks the claim revoked and returns the error the write that found out throws. */
  lost(): DurableTurnError {
    if (this.revocation.signal.aborted) return this.revocation.signal.reason as DurableTurnError;
    const error = new DurableTurnError({
      code: DurableTurnErrorCode.Superseded,
      message: `turn ${this.turnKey} was taken over by another worker, or a crash of the database lost step records this execution acted on; this execution may not write for it any more`,
    });
    this.revocation.abort(error);
    return error;
  }
}

/**
 * A `WITH` item named `claim` that has one row while `claim`, whose turn
 * key and token are the query parameters `$turnKeyParam` and `$tokenParam`,
 * still holds (its records kept included, see {@link TurnClaim}), locking
 * the workflow row (`FOR SHARE`) until the statement's transaction ends, so
 * a takeover (which updates that row) waits for the write, or the write
 * waits for the takeover and then finds the claim gone.
 */
export function claimCte(claim: TurnClaim, turnKeyParam: number, tokenParam: number): string {
  return `claim AS (
    SELECT 1 FROM "${DBOS_SYSTEM_SCHEMA}".workflow_status
    WHERE workflow_uuid = $${turnKeyParam} AND owner_xid = $${tokenParam}${claim.recordsKeptSql(turnKeyParam)}
    FOR SHARE
  )`;
}

/**
 * Throws (and revokes the claim) when a claimed write reported that the
 * claim no longer held (`claimed` was false).
 */
export function assertClaimed(claim: TurnClaim, claimed: boolean): void {
  if (!claimed) throw claim.lost();
}

/**
 * Runs `work` in one transaction that first checks the claim and locks the
 * turn's workflow row against a takeover until it commits; throws the
 * `superseded` error (and revokes the claim) when the claim no longer holds,
 * and then `work` does not run.
 */
export async function inClaimedTransaction<T>(
  pool: pg.Pool,
  claim: TurnClaim,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query(`WITH ${claimCte(claim, 1, 2)} SELECT 1 FROM claim`, [
      claim.turnKey,
      claim.token,
    ]);
    assertClaimed(claim, rows.length > 0);
    return work(client);
  });
}

/** Throws the `superseded` error (and revokes the claim) when the claim no longer holds; a read, nothing is locked. */
export async function assertClaimHolds(pool: pg.Pool, claim: TurnClaim): Promise<void> {
  if (claim.revoked.aborted) throw claim.revoked.reason;
  const sentAt = performance.now();
  const { rows } = await pool.query(
    `SELECT 1 FROM "${DBOS_SYSTEM_SCHEMA}".workflow_status
     WHERE workflow_uuid = $1 AND owner_xid = $2${claim.recordsKeptSql(1)}`,
    [claim.turnKey, claim.token],
  );
  assertClaimed(claim, rows.length > 0);
  claim.confirm(sentAt);
}

/**
 * As {@link assertClaimHolds}, and makes every commit before it durable: the
 * check locks the workflow row (`FOR SHARE`, as a claimed write does), which
 * makes its transaction commit and wait for the disk on `pool` (whose
 * commits wait), and Postgres's write-ahead log is one sequence, so that
 * flush also covers every earlier commit made without waiting (DBOS's step
 * checkpoints, the log and history rows behind them).
 */
export async function assertClaimHoldsDurably(pool: pg.Pool, claim: TurnClaim): Promise<void> {
  if (claim.revoked.aborted) throw claim.revoked.reason;
  const sentAt = performance.now();
  const { rows } = await pool.query(`WITH ${claimCte(claim, 1, 2)} SELECT 1 FROM claim`, [claim.turnKey, claim.token]);
  assertClaimed(claim, rows.length > 0);
  claim.confirm(sentAt);
  claim.noteDurable(sentAt);
}

/** The turn keys among `claims` whose claim still holds; a read, nothing is locked. */
export async function claimsHeld(pool: pg.Pool, claims: readonly TurnClaim[]): Promise<Set<string>> {
  if (claims.length === 0) return new Set();
  const { rows } = await pool.query(
    `SELECT w.workflow_uuid FROM unnest($1::text[], $2::text[]) AS c(turn_key, token)
     JOIN "${DBOS_SYSTEM_SCHEMA}".workflow_status w ON w.workflow_uuid = c.turn_key AND w.owner_xid = c.token`,
    [claims.map((claim) => claim.turnKey), claims.map((claim) => claim.token)],
  );
  return new Set(rows.map((row: { workflow_uuid: string }) => row.workflow_uuid));
}
