import type { TurnInputMessage } from "@turnkit/agent-core";
import type pg from "pg";
import { stallIfArmed } from "../workers/fault-point.js";
import { quoteIdent } from "./schema.js";
import { inTransaction } from "./transaction.js";
import { inClaimedTransaction, type TurnClaim } from "./turn-claim.js";

/** What `steer` answers: taken for delivery, or refused with the reason (start a new turn with the message instead). */
export type SteerAnswer = { accepted: true } | { accepted: false; reason: SteerRefusal };

/**
 * Why `steer` refused a message: `closed`, the turn ended or was about to
 * (its intake is closed); `aborted`, an abort of the turn was requested, so
 * the message would never reach the model.
 */
export type SteerRefusal = "closed" | "aborted";

/** One message a take took: its row id (the order `steer` accepted it in) and the message. */
export interface TakenMessage {
  id: number;
  message: TurnInputMessage;
}

/** What one take took: the messages in send order, and whether an abort was requested (then it took nothing). */
export interface SteeringTake {
  messages: TakenMessage[];
  abortRequested: boolean;
}

/** What a step of a turn took from the inbox when it ended, as its record holds it. */
export interface StepSteering extends SteeringTake {
  /** The take's key in the inbox (the step's position in the turn, from 1). */
  key: number;
}

/** `taken_at_poll` of messages handed back at the end of the turn (take keys count from 1). */
const HANDED_BACK = 0;

/**
 * A turn's steering inbox: messages sent by `steer`, the poll that took
 * each, and the turn's intake. Every path locks the turn's row first, so a
 * message is either taken by a poll, handed back when the turn ends, or
 * refused; never accepted and then lost. Every write is idempotent for the
 * step that makes it, so a step re-run after a crash finds the same answer.
 * The turn's own writes carry its {@link TurnClaim} and change nothing once
 * another worker took the turn over (they throw `superseded`).
 */
export class SteeringInbox {
  private readonly s: string;

  /** Whether this worker stopped at its test-only stall point already (it stops there once). */
  private stalled = false;

  /** `faultPoint`: a worker's test-only stall point (see `fault-point.ts`), or undefined. */
  constructor(
    private readonly pool: pg.Pool,
    schema: string,
    private readonly faultPoint?: string,
  ) {
    this.s = quoteIdent(schema);
  }

  /**
   * Queues a message for the turn's next step boundary. Refused (`closed`)
   * once the turn closed its intake, and (`aborted`) once an abort was
   * requested; also `closed` for a turn that has no row.
   */
  async steer(turnKey: string, message: TurnInputMessage): Promise<SteerAnswer> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query(
        `SELECT intake_closed, abort_requested FROM ${this.s}.turns WHERE turn_key = $1 FOR UPDATE`,
        [turnKey],
      );
      if (rows.length === 0 || rows[0].intake_closed) return { accepted: false, reason: "closed" } as const;
      if (rows[0].abort_requested) return { accepted: false, reason: "aborted" } as const;
      await client.query(`INSERT INTO ${this.s}.steering (turn_key, message) VALUES ($1, $2)`, [
        turnKey,
        JSON.stringify(message),
      ]);
      return { accepted: true } as const;
    });
  }

  /**
   * Takes the messages not taken before, marking them with `key` (a number
   * from 1 naming the step that takes them); with an abort requested it
   * takes nothing (and gives back what an interrupted run of the same step
   * took), so those messages are handed back by {@link closeAtEnd}.
   * Re-running the same key (a step re-run after a crash) returns what it
   * took before plus anything newer. When nothing waits for the key it only
   * reads: no transaction that writes, no commit.
   */
  async take(claim: TurnClaim, key: number): Promise<SteeringTake> {
    const turnKey = claim.turnKey;
    const { rows: looked } = await this.pool.query(
      `SELECT abort_requested, EXISTS (
         SELECT 1 FROM ${this.s}.steering WHERE turn_key = $1 AND (taken_at_poll IS NULL OR taken_at_poll = $2)
       ) AS has_messages
       FROM ${this.s}.turns WHERE turn_key = $1`,
      [turnKey, key],
    );
    if (looked[0]?.has_messages !== true) return { messages: [], abortRequested: looked[0]?.abort_requested === true };
    return inClaimedTransaction(this.pool, claim, async (client) => {
      const turn = await client.query(`SELECT abort_requested FROM ${this.s}.turns WHERE turn_key = $1 FOR UPDATE`, [
        turnKey,
      ]);
      if (!this.stalled) {
        this.stalled = this.faultPoint === "steering-take-in-transaction";
        stallIfArmed("steering-take-in-transaction", this.faultPoint);
      }
      if (turn.rows[0]?.abort_requested === true) {
        await client.query(
          `UPDATE ${this.s}.steering SET taken_at_poll = NULL WHERE turn_key = $1 AND taken_at_poll = $2`,
          [turnKey, key],
        );
        return { messages: [], abortRequested: true };
      }
      const taken = await client.query(
        `UPDATE ${this.s}.steering SET taken_at_poll = $2
         WHERE turn_key = $1 AND (taken_at_poll IS NULL OR taken_at_poll = $2)
         RETURNING id, message`,
        [turnKey, key],
      );
      const messages = taken.rows.map((row) => ({ id: Number(row.id), message: row.message as TurnInputMessage }));
      return { messages: messages.sort((x, y) => x.id - y.id), abortRequested: false };
    });
  }

  /**
   * A SQL condition that holds when a {@link take} with key `$keyParam` of
   * turn `$turnKeyParam` would take nothing and find no abort requested
   * (it would only read): a step's record that says so can be stored on
   * that condition, in the same statement that checks it.
   */
  nothingToTake(turnKeyParam: number, keyParam: number): string {
    return `NOT EXISTS (SELECT 1 FROM ${this.s}.turns WHERE turn_key = $${turnKeyParam} AND abort_requested)
      AND NOT EXISTS (SELECT 1 FROM ${this.s}.steering
        WHERE turn_key = $${turnKeyParam} AND (taken_at_poll IS NULL OR taken_at_poll = $${keyParam}))`;
  }

  /**
   * Closes the turn's intake when no message is waiting: `true` means later
   * `steer` calls are refused; `false` means a message arrived and the turn
   * must take it. Idempotent.
   */
  async tryCloseIntake(claim: TurnClaim): Promise<boolean> {
    const turnKey = claim.turnKey;
    return inClaimedTransaction(this.pool, claim, async (client) => {
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

  /**
   * Closes the turn's intake however the turn ended (completed, aborted,
   * failed) and hands back, in send order, every message of the turn not
   * taken by one of `deliveredKeys` (the takes whose messages the turn
   * received): those no take took, those taken but never received (an
   * abort or a stop came first), and those a take of an interrupted step
   * held that no recorded step holds. The turn reports them as
   * undelivered. Idempotent: a re-run returns the same messages.
   */
  async closeAtEnd(claim: TurnClaim, deliveredKeys: readonly number[]): Promise<TurnInputMessage[]> {
    const turnKey = claim.turnKey;
    return inClaimedTransaction(this.pool, claim, async (client) => {
      await client.query(`UPDATE ${this.s}.turns SET intake_closed = true WHERE turn_key = $1`, [turnKey]);
      const { rows } = await client.query(
        `UPDATE ${this.s}.steering SET taken_at_poll = $2
         WHERE turn_key = $1 AND (taken_at_poll IS NULL OR NOT (taken_at_poll = ANY($3::int[])))
         RETURNING id, message`,
        [turnKey, HANDED_BACK, deliveredKeys],
      );
      return [...rows].sort((a, b) => Number(a.id) - Number(b.id)).map((row) => row.message as TurnInputMessage);
    });
  }
}
