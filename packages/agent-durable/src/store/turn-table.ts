import type { TurnOutcome } from "@turnkit/protocol";
import type pg from "pg";
import type { DurableTurnRef } from "../turn/turn-request.js";
import { quoteIdent } from "./schema.js";

/**
 * The per-turn control rows: the turn itself (abort, outcome) and its
 * tool-call attempts (the steering inbox is `SteeringInbox`). Every write is idempotent for
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

  /** How often a tool call was started so far (0 when never), without counting a start. */
  async toolAttempts(turnKey: string, toolCallId: string): Promise<number> {
    const { rows } = await this.pool.query(
      `SELECT attempts FROM ${this.s}.tool_attempts WHERE turn_key = $1 AND tool_call_id = $2`,
      [turnKey, toolCallId],
    );
    return Number(rows[0]?.attempts ?? 0);
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
