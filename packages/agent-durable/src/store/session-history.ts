import type { AgentMessage } from "@turnkit/agent-loop";
import type pg from "pg";
import { DurableTurnError, DurableTurnErrorCode } from "../errors.js";
import type { HandBackTurn } from "./handing-back-pool.js";
import { quoteIdent } from "./schema.js";
import { assertClaimed, claimCte, inClaimedTransaction, type TurnClaim } from "./turn-claim.js";

/**
 * Each session's history, one row per message position. A turn appends at
 * positions it knows in advance, so writing the same change twice (a step
 * re-run after a crash) stores each message exactly once, and never leaves
 * a position empty behind the ones it stores.
 */
export class SessionHistory {
  private readonly table: string;
  private readonly turns: string;
  private readonly writes: pg.Pool;
  private readonly handBack: HandBackTurn | undefined;

  /**
   * `writes.pool`: the pool of {@link append} and {@link replace}, when not
   * `pool`: the turn's history writer sends a failed write again itself, so
   * a worker gives it a pool that does not hand the turn back on a lost
   * connection. `writes.handBack`: how a worker hands a turn back whose
   * execution wrote after messages the history does not hold (see
   * {@link append}).
   */
  constructor(
    private readonly pool: pg.Pool,
    schema: string,
    writes: { pool?: pg.Pool; handBack?: HandBackTurn } = {},
  ) {
    this.table = `${quoteIdent(schema)}.session_messages`;
    this.turns = `${quoteIdent(schema)}.turns`;
    this.writes = writes.pool ?? pool;
    this.handBack = writes.handBack;
  }

  /** The session's messages in order. */
  async load(sessionId: string): Promise<AgentMessage[]> {
    const { rows } = await this.pool.query(
      `SELECT message FROM ${this.table} WHERE session_id = $1 ORDER BY position`,
      [sessionId],
    );
    return rows.map((row: { message: AgentMessage }) => row.message);
  }

  /**
   * Stores `messages` at `at.position`, `at.position + 1`, ...; positions
   * already stored are kept. Returns what the history holds at those
   * positions now: `messages`, or for a position stored before (by an
   * earlier execution of the turn, whose message may differ in its
   * timestamp) the stored one.
   *
   * `at.replacementsBefore`: how many replacements the turn had made before
   * this change. When the history holds a later replacement of the turn (an
   * earlier execution went on and compacted it), that replacement has taken
   * these messages in and its own messages hold their positions now:
   * nothing is stored, and `messages` are returned as they are.
   *
   * Throws `superseded` (storing nothing) once `claim`, the writing turn's,
   * no longer holds.
   *
   * `at.after`: the position from which this execution wrote every message
   * (where the turn started, or 0 after a replacement). When `at.position`
   * is beyond it and the history lacks the message before it, nothing is
   * stored: the execution wrote that message and a crash of the database
   * server lost it (a commit that did not wait for the disk). Its turn is
   * handed back (`writes.handBack`: queued again, this execution's claim
   * revoked) and the call throws `superseded`, so the next execution
   * replays the turn and stores the lost messages again; without a way to
   * hand back it throws `history_write`.
   */
  async append(
    claim: TurnClaim,
    sessionId: string,
    at: { position: number; replacementsBefore: number; after: number },
    messages: readonly AgentMessage[],
  ): Promise<AgentMessage[]> {
    if (messages.length === 0) return [];
    const positions = messages.map((_, i) => at.position + i);
    const { rows } = await this.writes.query(
      `WITH ${claimCte(claim, 2, 5)},
       replaced AS (
         SELECT substring(turn_key FROM length($6) + 1) AS ordinal FROM ${this.table}
         WHERE session_id = $1 AND position = 0 AND left(turn_key, length($6)) = $6
       ),
       taken_in AS (
         SELECT 1 FROM replaced WHERE CASE WHEN ordinal ~ '^[0-9]{1,9}$' THEN ordinal::int ELSE 0 END > $7
       ),
       gap AS (
         SELECT 1 WHERE $8::int > $9::int AND NOT EXISTS (SELECT 1 FROM taken_in)
           AND NOT EXISTS (SELECT 1 FROM ${this.table} WHERE session_id = $1 AND position = $8::int)
           AND NOT EXISTS (SELECT 1 FROM ${this.table} WHERE session_id = $1 AND position = $8::int - 1)
       ),
       ins AS (
         INSERT INTO ${this.table} (session_id, position, turn_key, message)
         SELECT $1, p, $2, m::json FROM unnest($3::int[], $4::text[]) AS u(p, m)
         WHERE EXISTS (SELECT 1 FROM claim) AND NOT EXISTS (SELECT 1 FROM taken_in) AND NOT EXISTS (SELECT 1 FROM gap)
         ON CONFLICT (session_id, position) DO NOTHING
         RETURNING position, message
       ),
       held AS (
         SELECT position, message FROM ins
         UNION ALL
         SELECT position, message FROM ${this.table} WHERE session_id = $1 AND position = ANY($3::int[])
       )
       SELECT EXISTS (SELECT 1 FROM claim) AS claimed, EXISTS (SELECT 1 FROM taken_in) AS taken_in,
         EXISTS (SELECT 1 FROM gap) AS gap, coalesce(json_agg(message ORDER BY position), '[]') AS messages
       FROM held`,
      [
        sessionId,
        claim.turnKey,
        positions,
        messages.map((m) => JSON.stringify(m)),
        claim.token,
        replacementKey(claim.turnKey, ""),
        at.replacementsBefore,
        at.position,
        at.after,
      ],
    );
    assertClaimed(claim, rows[0].claimed === true);
    if (rows[0].gap === true) throw await this.lostMessagesBefore(claim, sessionId, at.position);
    return rows[0].taken_in === true ? [...messages] : (rows[0].messages as AgentMessage[]);
  }

  /**
   * What {@link append} throws when the history lacks the message before
   * `position`: the turn is handed back first when this history can
   * (`superseded`).
   */
  private async lostMessagesBefore(claim: TurnClaim, sessionId: string, position: number): Promise<unknown> {
    const error = new DurableTurnError({
      code: DurableTurnErrorCode.HistoryWrite,
      message: `session ${sessionId}'s history lacks position ${position - 1}, which turn ${claim.turnKey} wrote before position ${position} (a crash of the database lost it): the execution must not write after it`,
    });
    return this.handBack ? this.handBack(claim, error) : error;
  }

  /**
   * Replaces the whole history of the session with `messages` (compaction),
   * in one transaction, as the turn's replacement number `ordinal` (1 for
   * its first). Stored once: when the history already holds this
   * replacement or a later one of the same turn (an earlier execution wrote
   * it before a crash), it is left as it is, with the messages appended
   * after it, which a replay's appends then find at their positions.
   * `superseded` as {@link append}.
   */
  async replace(
    claim: TurnClaim,
    sessionId: string,
    messages: readonly AgentMessage[],
    ordinal: number,
  ): Promise<void> {
    const marker = replacementKey(claim.turnKey, ordinal);
    await inClaimedTransaction(this.writes, claim, async (client) => {
      // A rewind or fork to a turn before this one cannot find that turn's history any more. The turn's row
      // first, the history after it: the order every transaction locks them in (see LOCK_ORDER in schema.ts).
      await client.query(`UPDATE ${this.turns} SET history_replaced = true WHERE turn_key = $1`, [claim.turnKey]);
      const { rows } = await client.query(
        `SELECT turn_key FROM ${this.table} WHERE session_id = $1 AND position = 0 FOR UPDATE`,
        [sessionId],
      );
      const written = replacementOrdinal(claim.turnKey, (rows[0] as { turn_key?: string } | undefined)?.turn_key);
      if (written !== undefined && written >= ordinal) return;
      await client.query(`DELETE FROM ${this.table} WHERE session_id = $1`, [sessionId]);
      await client.query(
        `INSERT INTO ${this.table} (session_id, position, turn_key, message)
         SELECT $1, p, $2, m::json FROM unnest($3::int[], $4::text[]) AS u(p, m)`,
        [sessionId, marker, messages.map((_, i) => i), messages.map((m) => JSON.stringify(m))],
      );
    });
  }
}

/** The `turn_key` of the rows a replacement writes: the turn's key and the replacement's number in it (without one: the prefix). */
function replacementKey(turnKey: string, ordinal: number | ""): string {
  return `${turnKey}#replacement-${ordinal}`;
}

/** The number of the replacement of `turnKey` that wrote a row, from its `turn_key`; `undefined` for any other row. */
function replacementOrdinal(turnKey: string, rowKey: string | undefined): number | undefined {
  const prefix = replacementKey(turnKey, "");
  if (rowKey === undefined || !rowKey.startsWith(prefix)) return undefined;
  const ordinal = Number(rowKey.slice(prefix.length));
  return Number.isSafeInteger(ordinal) ? ordinal : undefined;
}
