import type { RuntimeEvent, TerminalStatusEvent } from "@turnkit/protocol";
import type pg from "pg";
import { EVENTS_CHANNEL, MAX_EVENTS_PER_WRITE } from "../defaults.js";
import { DurableTurnError, DurableTurnErrorCode } from "../errors.js";
import { eventIdentitySql } from "./event-identity.js";
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
 * refused by a unique index even when two writers race).
 */
export class EventLog {
  private readonly table: string;

  /**
   * `writes`: the pool of {@link append}, when not `pool`: the turn's event
   * writer sends a failed write again itself, so a worker gives it a pool
   * that does not hand the turn back on a lost connection.
   */
  constructor(
    private readonly pool: pg.Pool,
    schema: string,
    private readonly writes: pg.Pool = pool,
  ) {
    this.table = `${quoteIdent(schema)}.events`;
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
   */
  async append(claim: TurnClaim, events: readonly RuntimeEvent[]): Promise<void> {
    for (let start = 0; start < events.length; start += MAX_EVENTS_PER_WRITE) {
      const slice = events.slice(start, start + MAX_EVENTS_PER_WRITE);
      // The batch's events that find their seq stored (only a replay's) are compared with the stored ones in the
      // same statement, which stores nothing when one differs.
      const { rows } = await this.writes.query(
        `WITH ${claimCte(1, 6)},
         batch AS (SELECT s, t, e FROM unnest($2::int[], $3::text[], $4::text[]) AS u(s, t, e)),
         ended AS (SELECT 1 FROM ${this.table} WHERE turn_key = $1 AND ${TERMINAL_ROW}),
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
             AND NOT EXISTS (SELECT 1 FROM ended)
           ON CONFLICT DO NOTHING
           RETURNING 1
         ),
         notified AS (SELECT pg_notify($5, $1) WHERE EXISTS (SELECT 1 FROM ins))
         SELECT EXISTS (SELECT 1 FROM claim) AS claimed, (SELECT row_to_json(conflict) FROM conflict) AS conflict,
           (SELECT count(*) FROM notified) AS notified`,
        [
          claim.turnKey,
          slice.map((e) => e.seq),
          slice.map((e) => e.type),
          slice.map((e) => JSON.stringify(e)),
          EVENTS_CHANNEL,
          claim.token,
        ],
      );
      assertClaimed(claim, rows[0].claimed === true);
      const conflict = rows[0].conflict as { seq: number; logged: unknown; written: unknown } | null;
      if (conflict) {
        throw new DurableTurnError({
          code: DurableTurnErrorCode.LogConflict,
          message: `turn ${claim.turnKey} logged ${JSON.stringify(conflict.logged)} as event ${conflict.seq}, and an execution wrote ${JSON.stringify(conflict.written)} under that seq: it diverged from the log, which keeps the first`,
        });
      }
    }
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
