import type { TurnInputMessage } from "@turnkit/agent-core";
import type { TurnOutcome } from "@turnkit/protocol";
import type pg from "pg";
import type { DurableTurnRef } from "../turn/turn-request.js";
import { quoteIdent } from "./schema.js";
import { inTransaction } from "./transaction.js";

/** What one steering poll took: the messages in send order, and whether an abort was requested. */
export interface SteeringTake {
  messages: TurnInputMessage[];
  abortRequested: boolean;
}

/**
 * The per-turn control rows: the turn itself (intake, abort, outcome), its
 * steering inbox and its tool-call attempts. Every write is idempotent for
 * the step that makes it, so a step re-run after a crash finds the same
 * answer.
 */
export class TurnTable {
  private readonly s: string;

  constructor(
    private readonly pool: pg.Pool,
    schema: string,
  ) {
    this.s = quoteIdent(schema);
  }

  /** Records a started turn; a second call for the same turn changes nothing. */
  async insertTurn(turn: DurableTurnRef): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.s}.turns (turn_key, session_id, turn_id) VALUES ($1, $2, $3) ON CONFLICT (turn_key) DO NOTHING`,
      [turn.workflowId, turn.sessionId, turn.turnId],
    );
  }

  /** True when the turn was ever started. */
  async exists(turnKey: string): Promise<boolean> {
    const { rows } = await this.pool.query(`SELECT 1 FROM ${this.s}.turns WHERE turn_key = $1`, [turnKey]);
    return rows.length > 0;
  }

  /**
   * Queues a steering message unless the turn closed its intake (it was
   * about to end). The turn row is locked, so a message is either taken by
   * the turn or refused, never lost between the two.
   */
  async steer(turnKey: string, message: TurnInputMessage): Promise<{ accepted: boolean }> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query(`SELECT intake_closed FROM ${this.s}.turns WHERE turn_key = $1 FOR UPDATE`, [
        turnKey,
      ]);
      if (rows.length === 0 || rows[0].intake_closed) return { accepted: false };
      await client.query(`INSERT INTO ${this.s}.steering (turn_key, message) VALUES ($1, $2)`, [
        turnKey,
        JSON.stringify(message),
      ]);
      return { accepted: true };
    });
  }

  /**
   * Takes the steering messages not taken before, marking them with `poll`.
   * Re-running the same poll (a step retried after a crash) returns what it
   * took before plus anything newer, so nothing taken is lost.
   */
  async takeSteering(turnKey: string, poll: number): Promise<SteeringTake> {
    const taken = await this.pool.query(
      `UPDATE ${this.s}.steering SET taken_at_poll = $2
       WHERE turn_key = $1 AND (taken_at_poll IS NULL OR taken_at_poll = $2)
       RETURNING id, message`,
      [turnKey, poll],
    );
    const turn = await this.pool.query(`SELECT abort_requested FROM ${this.s}.turns WHERE turn_key = $1`, [turnKey]);
    const rows = [...taken.rows].sort((a, b) => Number(a.id) - Number(b.id));
    return {
      messages: rows.map((row) => row.message as TurnInputMessage),
      abortRequested: turn.rows[0]?.abort_requested === true,
    };
  }

  /**
   * Closes the turn's intake when no steering message is waiting: `true`
   * means later `steer` calls are refused; `false` means a message arrived
   * and the turn must take it. Idempotent.
   */
  async tryCloseIntake(turnKey: string): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      await client.query(`SELECT 1 FROM ${this.s}.turns WHERE turn_key = $1 FOR UPDATE`, [turnKey]);
      const waiting = await client.query(
        `SELECT 1 FROM ${this.s}.steering WHERE turn_key = $1 AND taken_at_poll IS NULL LIMIT 1`,
        [turnKey],
      );
      if (waiting.rows.length > 0) return false;
      await client.query(`UPDATE ${this.s}.turns SET intake_closed = true WHERE turn_key = $1`, [turnKey]);
      return true;
    });
  }

  /** Marks the turn for abort; `false` when there is no such turn. */
  async requestAbort(turnKey: string): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE ${this.s}.turns SET abort_requested = true WHERE turn_key = $1`,
      [turnKey],
    );
    return (rowCount ?? 0) > 0;
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
  async startToolAttempt(turnKey: string, toolCallId: string): Promise<number> {
    const { rows } = await this.pool.query(
      `INSERT INTO ${this.s}.tool_attempts (turn_key, tool_call_id, attempts) VALUES ($1, $2, 1)
       ON CONFLICT (turn_key, tool_call_id) DO UPDATE SET attempts = ${this.s}.tool_attempts.attempts + 1
       RETURNING attempts`,
      [turnKey, toolCallId],
    );
    return Number(rows[0].attempts);
  }

  /** Stores the turn's outcome (overwriting the same outcome on a replay). */
  async recordOutcome(turnKey: string, outcome: TurnOutcome): Promise<void> {
    await this.pool.query(`UPDATE ${this.s}.turns SET outcome = $2 WHERE turn_key = $1`, [
      turnKey,
      JSON.stringify(outcome),
    ]);
  }

  /** The stored outcome, or `undefined` while the turn runs (or was never started). */
  async outcome(turnKey: string): Promise<TurnOutcome | undefined> {
    const { rows } = await this.pool.query(`SELECT outcome FROM ${this.s}.turns WHERE turn_key = $1`, [turnKey]);
    return (rows[0]?.outcome as TurnOutcome | null) ?? undefined;
  }
}
