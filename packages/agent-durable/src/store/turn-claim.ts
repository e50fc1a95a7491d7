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

  /** Marks the claim revoked and returns the error the write that found out throws. */
  lost(): DurableTurnError {
    if (this.revocation.signal.aborted) return this.revocation.signal.reason as DurableTurnError;
    const error = new DurableTurnError({
      code: DurableTurnErrorCode.Superseded,
      message: `turn ${this.turnKey} was taken over by another worker; this execution may not write for it any more`,
    });
    this.revocation.abort(error);
    return error;
  }
}

/**
 * A `WITH` item named `claim` that has one row while the claim whose turn
 * key and token are the query parameters `$turnKeyParam` and `$tokenParam`
 * still holds, locking the workflow row (`FOR SHARE`) until the statement's
 * transaction ends, so a takeover (which updates that row) waits for the
 * write, or the write waits for the takeover and then finds the claim gone.
 */
export function claimCte(turnKeyParam: number, tokenParam: number): string {
  return `claim AS (
    SELECT 1 FROM "${DBOS_SYSTEM_SCHEMA}".workflow_status
    WHERE workflow_uuid = $${turnKeyParam} AND owner_xid = $${tokenParam}
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
    const { rows } = await client.query(`WITH ${claimCte(1, 2)} SELECT 1 FROM claim`, [claim.turnKey, claim.token]);
    assertClaimed(claim, rows.length > 0);
    return work(client);
  });
}

/** Throws the `superseded` error (and revokes the claim) when the claim no longer holds; a read, nothing is locked. */
export async function assertClaimHolds(pool: pg.Pool, claim: TurnClaim): Promise<void> {
  if (claim.revoked.aborted) throw claim.revoked.reason;
  const sentAt = performance.now();
  const { rows } = await pool.query(
    `SELECT 1 FROM "${DBOS_SYSTEM_SCHEMA}".workflow_status WHERE workflow_uuid = $1 AND owner_xid = $2`,
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
  const { rows } = await pool.query(`WITH ${claimCte(1, 2)} SELECT 1 FROM claim`, [claim.turnKey, claim.token]);
  assertClaimed(claim, rows.length > 0);
  claim.confirm(sentAt);
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
