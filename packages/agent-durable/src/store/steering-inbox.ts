import type { TurnInputMessage } from "@turnkit/agent-core";
import type pg from "pg";
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

/** What one steering poll took: the messages in send order, and whether an abort was requested. */
export interface SteeringTake {
  messages: TurnInputMessage[];
  abortRequested: boolean;
}

/** `taken_at_poll` of messages handed back at the end of the turn (polls count from 1). */
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

  constructor(
    private readonly pool: pg.Pool,
    schema: string,
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
   * Takes the messages not taken before, marking them with `poll`; with an
   * abort requested it takes nothing (and gives back what an interrupted run
   * of the same poll took), so those messages are handed back by
   * {@link closeAtEnd}. Re-running the same poll (a step retried after a
   * crash) returns what it took before plus anything newer.
   */
  async take(claim: TurnClaim, poll: number): Promise<SteeringTake> {
    const turnKey = claim.turnKey;
    return inClaimedTransaction(this.pool, claim, async (client) => {
      const turn = await client.query(`SELECT abort_requested FROM ${this.s}.turns WHERE turn_key = $1 FOR UPDATE`, [
        turnKey,
      ]);
      if (turn.rows[0]?.abort_requested === true) {
        await client.query(
          `UPDATE ${this.s}.steering SET taken_at_poll = NULL WHERE turn_key = $1 AND taken_at_poll = $2`,
          [turnKey, poll],
        );
        return { messages: [], abortRequested: true };
      }
      const taken = await client.query(
        `UPDATE ${this.s}.steering SET taken_at_poll = $2
         WHERE turn_key = $1 AND (taken_at_poll IS NULL OR taken_at_poll = $2)
         RETURNING id, message`,
        [turnKey, poll],
      );
      const rows = [...taken.rows].sort((a, b) => Number(a.id) - Number(b.id));
      return { messages: rows.map((row) => row.message as TurnInputMessage), abortRequested: false };
    });
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
   * failed) and hands back the messages no poll took, in send order: the
   * turn reports them as undelivered. Idempotent: a re-run returns the same
   * messages.
   */
  async closeAtEnd(claim: TurnClaim): Promise<TurnInputMessage[]> {
    const turnKey = claim.turnKey;
    return inClaimedTransaction(this.pool, claim, async (client) => {
      await client.query(`UPDATE ${this.s}.turns SET intake_closed = true WHERE turn_key = $1`, [turnKey]);
      const { rows } = await client.query(
        `UPDATE ${this.s}.steering SET taken_at_poll = $2
         WHERE turn_key = $1 AND (taken_at_poll IS NULL OR taken_at_poll = $2)
         RETURNING id, message`,
        [turnKey, HANDED_BACK],
      );
      return [...rows].sort((a, b) => Number(a.id) - Number(b.id)).map((row) => row.message as TurnInputMessage);
    });
  }
}
