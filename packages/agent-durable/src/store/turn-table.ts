import { performance } from "node:perf_hooks";
import type { TurnOutcome } from "@turnkit/protocol";
import type pg from "pg";
import type { DurableTurnRef, DurableTurnRequest } from "../turn/turn-request.js";
import { quoteIdent } from "./schema.js";
import { inTransaction } from "./transaction.js";
import {
  assertClaimed,
  assertClaimHolds,
  assertClaimHoldsDurably,
  claimCte,
  claimsHeld,
  type TurnClaim,
} from "./turn-claim.js";

/**
 * The per-turn control rows: the turn itself (abort, outcome) and its
 * tool-call attempts (the steering inbox is `SteeringInbox`). Every write is idempotent for
 * the step that makes it, so a step re-run after a crash finds the same
 * answer. The writes of a running turn carry its {@link TurnClaim} and
 * change nothing once another worker took the turn over (they throw
 * `superseded`); the client's writes (start, steer, abort) need none.
 */
export class TurnTable {
  private readonly s: string;

  constructor(
    private readonly pool: pg.Pool,
    schema: string,
  ) {
    this.s = quoteIdent(schema);
  }

  /**
   * Records a started turn (and its session, when new); a second call for
   * the same turn changes nothing. Holds the session's row while it does, so
   * a rewind of the session either sees the turn or comes before it. The
   * commit does not wait for the disk: the turn is queued before (and that
   * waited), and its start step records the row again when a crash of the
   * database server lost it.
   */
  async insertTurn(turn: DurableTurnRef, request: Pick<DurableTurnRequest, "label" | "userMessage">): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await client.query("SET LOCAL synchronous_commit = off");
      await client.query(`INSERT INTO ${this.s}.sessions (session_id) VALUES ($1) ON CONFLICT DO NOTHING`, [
        turn.sessionId,
      ]);
      await client.query(`SELECT 1 FROM ${this.s}.sessions WHERE session_id = $1 FOR SHARE`, [turn.sessionId]);
      await client.query(
        `INSERT INTO ${this.s}.turns (turn_key, session_id, turn_id, label, user_message) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (turn_key) DO NOTHING`,
        [
          turn.workflowId,
          turn.sessionId,
          turn.turnId,
          request.label ?? null,
          request.userMessage === undefined ? null : JSON.stringify(request.userMessage),
        ],
      );
    });
  }

  /**
   * Records the turn as {@link insertTurn} does when it has no row yet (the
   * start that queued it died before it recorded it); only reads when it has.
   */
  async ensureTurn(turn: DurableTurnRef, request: Pick<DurableTurnRequest, "label" | "userMessage">): Promise<void> {
    if (!(await this.exists(turn.workflowId))) await this.insertTurn(turn, request);
  }

  /** True when the turn was ever started. */
  async exists(turnKey: string): Promise<boolean> {
    const { rows } = await this.pool.query(`SELECT 1 FROM ${this.s}.turns WHERE turn_key = $1`, [turnKey]);
    return rows.length > 0;
  }

  /**
   * Marks the turn for abort and, in the same transaction, sends its notice
   * (`sendNotice` writes it on the transaction's client: DBOS's tables share
   * the database with ours). Both commit, or neither when either fails; a
   * crash never leaves one without the other.
   */
  async requestAbort(turnKey: string, sendNotice: (db: pg.PoolClient) => Promise<void>): Promise<void> {
    await inTransaction(this.pool, async (db) => {
      await db.query(`UPDATE ${this.s}.turns SET abort_requested = true WHERE turn_key = $1`, [turnKey]);
      await sendNotice(db);
    });
  }

  /**
   * Marks the turn for abort from inside its own execution, while `claim`
   * holds (a superseded execution marks nothing): the worker's abort
   * watcher then stops it as it stops one a client aborted, and sends the
   * notice that ends a waiting approval. Resolves `false` when the claim no
   * longer held.
   */
  async requestAbortAsOwner(claim: TurnClaim): Promise<boolean> {
    const { rows } = await this.pool.query(
      `WITH ${claimCte(claim, 1, 2)},
       marked AS (UPDATE ${this.s}.turns SET abort_requested = true WHERE turn_key = $1 AND EXISTS (SELECT 1 FROM claim) RETURNING 1)
       SELECT count(*) AS marked FROM marked`,
      [claim.turnKey, claim.token],
    );
    return Number(rows[0].marked) > 0;
  }

  /** The turns among `turnKeys` that have an abort request. */
  async abortRequested(turnKeys: readonly string[]): Promise<string[]> {
    if (turnKeys.length === 0) return [];
    const { rows } = await this.pool.query(
      `SELECT turn_key FROM ${this.s}.turns WHERE turn_key = ANY($1) AND abort_requested`,
      [turnKeys],
    );
    return rows.map((row: { turn_key: string }) => row.turn_key);
  }

  /**
   * Counts one more start of a tool call and returns the count: more than 1
   * means an earlier start was interrupted before its result was recorded.
   */
  async startToolAttempt(claim: TurnClaim, toolCallId: string): Promise<number> {
    const sentAt = performance.now();
    const { rows } = await this.pool.query(
      `WITH ${claimCte(claim, 1, 3)},
       counted AS (
         INSERT INTO ${this.s}.tool_attempts (turn_key, tool_call_id, attempts)
         SELECT $1, $2, 1 WHERE EXISTS (SELECT 1 FROM claim)
         ON CONFLICT (turn_key, tool_call_id) DO UPDATE SET attempts = ${this.s}.tool_attempts.attempts + 1
         RETURNING attempts
       )
       SELECT EXISTS (SELECT 1 FROM claim) AS claimed, (SELECT attempts FROM counted) AS attempts`,
      [claim.turnKey, toolCallId, claim.token],
    );
    assertClaimed(claim, rows[0].claimed === true);
    claim.confirm(sentAt);
    // Its commit waited for the disk (this pool's commits wait): the records before it are on disk.
    claim.noteDurable(sentAt);
    return Number(rows[0].attempts);
  }

  /** How often a tool call was started so far (0 when never), without counting a start. */
  async toolAttempts(turnKey: string, toolCallId: string): Promise<number> {
    const { rows } = await this.pool.query(
      `SELECT attempts FROM ${this.s}.tool_attempts WHERE turn_key = $1 AND tool_call_id = $2`,
      [turnKey, toolCallId],
    );
    return Number(rows[0]?.attempts ?? 0);
  }

  /**
   * Stores the turn's outcome and where its history ended (the number of
   * messages the session history held when it finished), overwriting the
   * same on a replay.
   */
  async recordOutcome(claim: TurnClaim, outcome: TurnOutcome, historyEnd: number): Promise<void> {
    const { rows } = await this.pool.query(
      `WITH ${claimCte(claim, 1, 3)},
       stored AS (
         UPDATE ${this.s}.turns SET outcome = $2, history_end = $4
         WHERE turn_key = $1 AND EXISTS (SELECT 1 FROM claim) RETURNING 1
       )
       SELECT EXISTS (SELECT 1 FROM claim) AS claimed, (SELECT count(*) FROM stored) AS stored`,
      [claim.turnKey, JSON.stringify(outcome), claim.token, historyEnd],
    );
    assertClaimed(claim, rows[0].claimed === true);
  }

  /**
   * Throws `superseded` when the execution holding `claim` lost the turn to
   * another worker: called before every model request and tool call, so a
   * worker that stalled past its lease sends and runs nothing more.
   */
  async assertClaimHolds(claim: TurnClaim): Promise<void> {
    await assertClaimHolds(this.pool, claim);
  }

  /**
   * As {@link assertClaimHolds}, and once it resolves every commit made
   * before it is on disk, also those that did not wait (see
   * `assertClaimHoldsDurably`): called before a model request that follows
   * other live steps, whose checkpoints must not be lost to a crash of the
   * database server once the request is sent.
   */
  async assertClaimHoldsDurably(claim: TurnClaim): Promise<void> {
    await assertClaimHoldsDurably(this.pool, claim);
  }

  /** Revokes each of `claims` that no longer holds (see `TurnClaim.revoked`), in one query. */
  async revokeLostClaims(claims: readonly TurnClaim[]): Promise<void> {
    const held = await claimsHeld(this.pool, claims);
    for (const claim of claims) if (!held.has(claim.turnKey)) claim.lost();
  }

  /** The stored outcome, or `undefined` while the turn runs (or was never started). */
  async outcome(turnKey: string): Promise<TurnOutcome | undefined> {
    const { rows } = await this.pool.query(`SELECT outcome FROM ${this.s}.turns WHERE turn_key = $1`, [turnKey]);
    return (rows[0]?.outcome as TurnOutcome | null) ?? undefined;
  }
}
