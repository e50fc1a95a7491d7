import type { RuntimeEvent, TerminalStatusEvent } from "@turnkit/protocol";
import type pg from "pg";
import { EVENTS_CHANNEL, MAX_EVENTS_PER_WRITE } from "../defaults.js";
import { DurableTurnError, DurableTurnErrorCode } from "../errors.js";
import { eventIdentitySql } from "./event-identity.js";
import type { HandBackTurn } from "./handing-back-pool.js";
import { quoteIdent, TERMINAL_ROW } from "./schema.js";
import { assertClaimed, claimCte, type TurnClaim } from "./turn-claim.js";

/**
 * The durable event log: every logged `RuntimeEvent` of a turn under its
 * `seq`. Writes are idempotent (an event already stored under its seq is
 * kept as it is), so a replayed turn can write its events again without
 * duplicating or renumbering any; another event under a stored seq is
 * refused loudly (`log_conflict`), never dropped. A turn's log ends with
 * its one terminal status: once it is stored, nothing more of the turn is
 * (checked in the statement that writes, and a second terminal status is
 * refused by a unique index even when two writers race). A log never gets
 * a gap: an event is stored only after the one before it.
 */
export class EventLog {
  private readonly table: string;
  private readonly writes: pg.Pool;
  private readonly handBack: HandBackTurn | undefined;

  /**
   * `writes.pool`: the pool of {@link append}, when not `pool`: the turn's
   * event writer sends a failed write again itself, so a worker gives it a
   * pool that does not hand the turn back on a lost connection.
   * `writes.handBack`: how a worker hands a turn back whose execution wrote
   * after events the log does not hold (see {@link append}).
   */
  constructor(
    private readonly pool: pg.Pool,
    schema: string,
    writes: { pool?: pg.Pool; handBack?: HandBackTurn } = {},
  ) {
    this.table = `${quoteIdent(schema)}.events`;
    this.writes = writes.pool ?? pool;
    this.handBack = writes.handBack;
  }

  /**
   * Stores `events` (all of one turn, increasing seq) in as few statements
   * as {@link MAX_EVENTS_PER_WRITE} allows and notifies followers. An event
   * whose seq is already stored is kept as stored when it is the same event
   * written again (see `eventIdentitySql`: its timing may differ), and
   * everything is skipped, unchecked, once the turn's terminal status is
   * stored (a second terminal status is never stored; the ended log is
   * whole, and the turn's outcome is the one it ends with). Rejects when
   * Postgres does, with `superseded` (storing nothing) once `claim` no
   * longer holds, and with `log_conflict` when a stored seq holds another
   * event, storing nothing of the statement's batch holding it.
   *
   * Stores nothing when the log lacks the event right before `events`: the
   * execution wrote it, and a crash of the database server lost it (a
   * commit that did not wait for the disk), so what the execution holds in
   * memory is ahead of what the database kept. Its turn is then handed back
   * (`writes.handBack`: queued again, this execution's claim revoked), and
   * the call rejects with `superseded`: the next execution replays the turn
   * from its records and writes the lost events again. Without a way to
   * hand back, it rejects with `log_write`.
   */
  async append(claim: TurnClaim, events: readonly RuntimeEvent[]): Promise<void> {
    for (let start = 0; start < events.length; start += MAX_EVENTS_PER_WRITE) {
      const slice = events.slice(start, start + MAX_EVENTS_PER_WRITE);
      // The batch's events that find their seq stored (only a replay's) are compared with the stored ones in the
      // same statement, which stores nothing when one differs. A batch whose first seq is new is stored only after
      // the seq before it: a write never leaves a gap behind it.
      const { rows } = await this.writes.query(
        `WITH ${claimCte(claim, 1, 6)},
         batch AS (SELECT s, t, e FROM unnest($2::int[], $3::text[], $4::text[]) AS u(s, t, e)),
         ended AS (SELECT 1 FROM ${this.table} WHERE turn_key = $1 AND ${TERMINAL_ROW}),
         gap AS (
           SELECT 1 WHERE $7::int > 1 AND NOT EXISTS (SELECT 1 FROM ended)
             AND NOT EXISTS (SELECT 1 FROM ${this.table} WHERE turn_key = $1 AND seq = $7::int)
             AND NOT EXISTS (SELECT 1 FROM ${this.table} WHERE turn_key = $1 AND seq = $7::int - 1)
         ),
         conflict AS (
           SELECT b.s AS seq, ${eventIdentitySql("x.event::jsonb")} AS logged, ${eventIdentitySql("b.e::jsonb")} AS written
           FROM batch b JOIN ${this.table} x ON x.turn_key = $1 AND x.seq = b.s
           -- The same text (most often: what a replay writes again is what it wrote) needs no closer look.
           WHERE CASE WHEN x.event::text = b.e THEN false
             ELSE ${eventIdentitySql("x.event::jsonb")} <> ${eventIdentitySql("b.e::jsonb")} END
             AND NOT EXISTS (SELECT 1 FROM ended)
           ORDER BY b.s LIMIT 1
         ),
         ins AS (
           INSERT INTO ${this.table} (turn_key, seq, type, event)
           SELECT $1, s, t, e::json FROM batch
           WHERE EXISTS (SELECT 1 FROM claim) AND NOT EXISTS (SELECT 1 FROM conflict)
             AND NOT EXISTS (SELECT 1 FROM ended) AND NOT EXISTS (SELECT 1 FROM gap)
           ON CONFLICT DO NOTHING
           RETURNING 1
         ),
         notified AS (SELECT pg_notify($5, $1) WHERE EXISTS (SELECT 1 FROM ins))
         SELECT EXISTS (SELECT 1 FROM claim) AS claimed, (SELECT row_to_json(conflict) FROM conflict) AS conflict,
           EXISTS (SELECT 1 FROM gap) AS gap, (SELECT count(*) FROM notified) AS notified`,
        [
          claim.turnKey,
          slice.map((e) => e.seq),
          slice.map((e) => e.type),
          slice.map((e) => JSON.stringify(e)),
          EVENTS_CHANNEL,
          claim.token,
          slice[0]!.seq,
        ],
      );
      assertClaimed(claim, rows[0].claimed === true);
      if (rows[0].gap === true) throw await this.lostEventsBefore(claim, slice[0]!.seq);
      const conflict = rows[0].conflict as { seq: number; logged: unknown; written: unknown } | null;
      if (conflict) {
        throw new DurableTurnError({
          code: DurableTurnErrorCode.LogConflict,
          message: `turn ${claim.turnKey} logged ${JSON.stringify(conflict.logged)} as event ${conflict.seq}, and an execution wrote ${JSON.stringify(conflict.written)} under that seq: it diverged from the log, which keeps the first`,
        });
      }
    }
  }

  /**
   * What {@link append} rejects with when the log lacks the event before
   * `seq`: the turn is handed back first when this log can (`superseded`).
   */
  private async lostEventsBefore(claim: TurnClaim, seq: number): Promise<unknown> {
    const error = new DurableTurnError({
      code: DurableTurnErrorCode.LogWrite,
      message: `turn ${claim.turnKey}'s log lacks event ${seq - 1}, which its execution wrote before event ${seq} (a crash of the database lost it): the execution must not write after it`,
    });
    return this.handBack ? this.handBack(claim, error) : error;
  }

  /** The highest stored seq of a turn, 0 when none. */
  async maxSeq(turnKey: string): Promise<number> {
    const { rows } = await this.pool.query(
      `SELECT coalesce(max(seq), 0) AS max FROM ${this.table} WHERE turn_key = $1`,
      [turnKey],
    );
    return Number(rows[0].max);
  }

  /**
   * What the turn's events with `seq >= fromSeq` hold (an interrupted
   * step's, when a resume supersedes them): the highest `origin.seq` of
   * each sub-agent turn among them, and how many `durable.resume` notices.
   */
  async tailFrom(turnKey: string, fromSeq: number): Promise<{ childSeqs: Record<string, number>; resumes: number }> {
    const { rows } = await this.pool.query(
      `SELECT event->'origin'->>'turnId' AS turn, max((event->'origin'->>'seq')::int) AS seq,
              count(*) FILTER (WHERE type = 'debug.trace' AND event->'payload'->>'phase' = 'durable.resume') AS resumes
       FROM ${this.table} WHERE turn_key = $1 AND seq >= $2 GROUP BY 1`,
      [turnKey, fromSeq],
    );
    const childSeqs: Record<string, number> = {};
    let resumes = 0;
    for (const row of rows as { turn: string | null; seq: number | null; resumes: string }[]) {
      if (row.turn !== null) childSeqs[row.turn] = Number(row.seq);
      resumes += Number(row.resumes);
    }
    return { childSeqs, resumes };
  }

  /** The highest stored seq of a turn, and its events with `seq >= fromSeq`, in seq order. */
  async eventsFrom(turnKey: string, fromSeq: number): Promise<{ storedSeq: number; events: RuntimeEvent[] }> {
    const events: RuntimeEvent[] = [];
    for (let after = fromSeq - 1; ; ) {
      const page = await this.read(turnKey, after, MAX_EVENTS_PER_WRITE);
      events.push(...page);
      if (page.length < MAX_EVENTS_PER_WRITE) break;
      after = page[page.length - 1]!.seq;
    }
    return { storedSeq: events.at(-1)?.seq ?? (await this.maxSeq(turnKey)), events };
  }

  /** The turn's terminal status as the log holds it, or `undefined` while it has none. */
  async terminal(turnKey: string): Promise<TerminalStatusEvent | undefined> {
    const { rows } = await this.pool.query(
      `SELECT event FROM ${this.table} WHERE turn_key = $1 AND ${TERMINAL_ROW} LIMIT 1`,
      [turnKey],
    );
    return rows[0]?.event;
  }

  /** Events of a turn with `seq > afterSeq`, in seq order, at most `limit`. */
  async read(turnKey: string, afterSeq: number, limit: number): Promise<RuntimeEvent[]> {
    const { rows } = await this.pool.query(
      `SELECT event FROM ${this.table} WHERE turn_key = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [turnKey, afterSeq, limit],
    );
    return rows.map((row: { event: RuntimeEvent }) => row.event);
  }

  /** True when the turn's log holds an `action.required` event with this request id. */
  async hasActionRequest(turnKey: string, requestId: string): Promise<boolean> {
    const { rows } = await this.pool.query(
      `SELECT 1 FROM ${this.table} WHERE turn_key = $1 AND type = 'action.required' AND (event->'payload'->>'requestId') = $2 LIMIT 1`,
      [turnKey, requestId],
    );
    return rows.length > 0;
  }
}
