import type { AgentMessage } from "@turnkit/agent-loop";
import type { TurnOutcome } from "@turnkit/protocol";
import type pg from "pg";
import { DBOS_SYSTEM_SCHEMA } from "../defaults.js";
import { DurableTurnError, DurableTurnErrorCode } from "../errors.js";
import { quoteIdent } from "./schema.js";
import { inTransaction } from "./transaction.js";

/** One session as {@link SessionCatalog.list} reports it. */
export interface SessionSummary {
  sessionId: string;
  /** When the session was made (its first start, or its fork), ISO 8601. */
  createdAt: string;
  /** The session and finished turn it was forked at, for a fork. */
  forkedFrom?: { sessionId: string; turnId: string };
  /** How many turns were started in it (rewound ones included). */
  turns: number;
}

/** A page of sessions, newest first; pass `next` as `after` for the following page (absent on the last). */
export interface SessionPage {
  sessions: SessionSummary[];
  next?: string;
}

/** Where a turn of a session is, as {@link SessionCatalog.turns} reports it. */
export type SessionTurnState = "queued" | "running" | "finished" | "failed";

/** One turn of a session, in start order. */
export interface SessionTurn {
  turnId: string;
  label?: string;
  /** When `start` recorded it, ISO 8601. */
  startedAt: string;
  /** `queued`, `running`, `finished` (with `outcome`), or `failed` when its workflow itself failed. */
  state: SessionTurnState;
  /** How the turn ended, once finished. */
  outcome?: TurnOutcome["kind"];
  /** `false` once a rewind to an earlier turn took its messages out of the history the next turn sees. */
  inHistory: boolean;
}

/** DBOS statuses of a workflow that will not run any more. */
const ENDED_WORKFLOW = `('SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED')`;

/** A turn row with what a fork or rewind checks. */
interface TurnRow {
  turn_key: string;
  finished: boolean;
  history_end: number | null;
  rewound: boolean;
}

/**
 * The sessions of a deployment: listing them and their turns, and the two
 * operations that change which messages the next turn of a session sees:
 * fork and rewind. Each of those is one transaction that checks everything
 * first and writes all or nothing (a crash leaves the state before it), and
 * holds the session's row, which `start` holds too, so a turn cannot start
 * half-way through a rewind.
 */
export class SessionCatalog {
  private readonly s: string;

  constructor(
    private readonly pool: pg.Pool,
    schema: string,
    /** The queue turns go through: a turn queued there may not have its row yet (see {@link rewind}). */
    private readonly queueName: string,
  ) {
    this.s = quoteIdent(schema);
  }

  /** Sessions newest first, at most `limit`, after the cursor `after` (a page's `next`). */
  async list(limit: number, after: string | undefined): Promise<SessionPage> {
    const cursor = after === undefined ? undefined : decodeCursor(after);
    const { rows } = await this.pool.query(
      `SELECT s.session_id, s.created_at, s.created_at::text AS created_key, s.forked_from_session, s.forked_at_turn,
              (SELECT count(*) FROM ${this.s}.turns t WHERE t.session_id = s.session_id) AS turns
       FROM ${this.s}.sessions s
       WHERE $1::text IS NULL OR (s.created_at, s.session_id) < ($1::timestamptz, $2::text)
       ORDER BY s.created_at DESC, s.session_id DESC
       LIMIT $3`,
      [cursor?.createdAt ?? null, cursor?.sessionId ?? null, limit + 1],
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      sessions: page.map((row) => ({
        sessionId: row.session_id,
        createdAt: (row.created_at as Date).toISOString(),
        ...(row.forked_from_session !== null && {
          forkedFrom: { sessionId: row.forked_from_session, turnId: row.forked_at_turn },
        }),
        turns: Number(row.turns),
      })),
      ...(rows.length > limit && last && { next: encodeCursor(last.created_key, last.session_id) }),
    };
  }

  /** The session's turns in start order; `unknown_session` when there is no such session. */
  async turns(sessionId: string): Promise<SessionTurn[]> {
    await this.assertSession(this.pool, sessionId);
    const { rows } = await this.pool.query(
      `SELECT t.turn_id, t.label, t.created_at, t.outcome->>'kind' AS outcome, t.rewound, w.status
       FROM ${this.s}.turns t
       LEFT JOIN "${DBOS_SYSTEM_SCHEMA}".workflow_status w ON w.workflow_uuid = t.turn_key
       WHERE t.session_id = $1
       ORDER BY t.created_at, t.turn_key`,
      [sessionId],
    );
    return rows.map((row) => ({
      turnId: row.turn_id,
      ...(row.label !== null && { label: row.label }),
      startedAt: (row.created_at as Date).toISOString(),
      state: stateOf(row.status, row.outcome),
      ...(row.outcome !== null && { outcome: row.outcome }),
      inHistory: !row.rewound,
    }));
  }

  /** The session's history as the next turn will see it; `unknown_session` when there is no such session. */
  async history(sessionId: string): Promise<AgentMessage[]> {
    await this.assertSession(this.pool, sessionId);
    const { rows } = await this.pool.query(
      `SELECT message FROM ${this.s}.session_messages WHERE session_id = $1 ORDER BY position`,
      [sessionId],
    );
    return rows.map((row: { message: AgentMessage }) => row.message);
  }

  /** Sets or clears (`undefined`) a turn's label; `false` when there is no such turn. */
  async label(turnKey: string, label: string | undefined): Promise<boolean> {
    const { rowCount } = await this.pool.query(`UPDATE ${this.s}.turns SET label = $2 WHERE turn_key = $1`, [
      turnKey,
      label ?? null,
    ]);
    return (rowCount ?? 0) > 0;
  }

  /**
   * Makes session `into` whose history is session `from`'s as it stood when
   * turn `atTurnKey` finished; `from` is not changed. Throws
   * `unknown_session`, `unknown_turn`, `turn_not_finished`,
   * `turn_not_in_history` (rewound away, or a later turn replaced the
   * history) or `session_exists` (`into` has a row, a turn or a message).
   */
  async fork(from: string, atTurnKey: string, atTurnId: string, into: string): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      // One snapshot for the checks and the copy: a compaction committed meanwhile is not half-seen.
      await client.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
      await this.assertSession(client, from, "FOR SHARE");
      const turn = await this.finishedTurnInHistory(client, from, atTurnKey, atTurnId);
      const taken = await client.query(
        `SELECT 1 FROM ${this.s}.sessions WHERE session_id = $1
         UNION ALL SELECT 1 FROM ${this.s}.turns WHERE session_id = $1
         UNION ALL SELECT 1 FROM ${this.s}.session_messages WHERE session_id = $1 LIMIT 1`,
        [into],
      );
      if (taken.rows.length > 0) throw sessionExists(into);
      const inserted = await client.query(
        `INSERT INTO ${this.s}.sessions (session_id, forked_from_session, forked_at_turn) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING`,
        [into, from, atTurnId],
      );
      if (inserted.rowCount === 0) throw sessionExists(into);
      await client.query(
        `INSERT INTO ${this.s}.session_messages (session_id, position, turn_key, message)
         SELECT $1, position, turn_key, message FROM ${this.s}.session_messages
         WHERE session_id = $2 AND position < $3`,
        [into, from, turn.history_end],
      );
    });
  }

  /**
   * Takes every turn of the session after `toTurnKey` out of its history:
   * the next turn sees the history as it stood when that turn finished. The
   * later turns' events stay in the log; they are listed with `inHistory:
   * false`. Throws `unknown_session`, `unknown_turn`, `turn_not_finished`,
   * `turn_not_in_history`, or `session_busy` while a turn of the session is
   * queued or running.
   */
  async rewind(sessionId: string, toTurnKey: string, toTurnId: string): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      await this.assertSession(client, sessionId, "FOR UPDATE");
      const turn = await this.finishedTurnInHistory(client, sessionId, toTurnKey, toTurnId);
      // Busy: a turn of the session whose workflow has not ended, or one queued whose row `start` has not written
      // yet (it queues first). A row without a workflow is a start that died before queueing: not busy.
      const { rows: busy } = await client.query(
        `SELECT t.turn_id FROM ${this.s}.turns t
         JOIN "${DBOS_SYSTEM_SCHEMA}".workflow_status w ON w.workflow_uuid = t.turn_key
         WHERE t.session_id = $1 AND t.outcome IS NULL AND w.status NOT IN ${ENDED_WORKFLOW}
         UNION ALL
         SELECT w.workflow_uuid FROM "${DBOS_SYSTEM_SCHEMA}".workflow_status w
         WHERE w.queue_name = $2 AND w.status IN ('ENQUEUED', 'PENDING') AND w.queue_partition_key = $1
         LIMIT 1`,
        [sessionId, this.queueName],
      );
      if (busy.length > 0) {
        throw new DurableTurnError({
          code: DurableTurnErrorCode.SessionBusy,
          message: `session ${sessionId} has a turn that is queued or running (${busy[0].turn_id}); rewind it once that turn ended`,
        });
      }
      // The turns' rows before the history: the order every transaction locks them in (LOCK_ORDER in schema.ts).
      await client.query(
        `UPDATE ${this.s}.turns SET rewound = true
         WHERE session_id = $1 AND NOT rewound
           AND (created_at, turn_key) > (SELECT created_at, turn_key FROM ${this.s}.turns WHERE turn_key = $2)`,
        [sessionId, turn.turn_key],
      );
      await client.query(`DELETE FROM ${this.s}.session_messages WHERE session_id = $1 AND position >= $2`, [
        sessionId,
        turn.history_end,
      ]);
    });
  }

  private async assertSession(
    client: pg.Pool | pg.PoolClient,
    sessionId: string,
    lock: "" | "FOR SHARE" | "FOR UPDATE" = "",
  ): Promise<void> {
    const { rows } = await client.query(`SELECT 1 FROM ${this.s}.sessions WHERE session_id = $1 ${lock}`, [sessionId]);
    if (rows.length === 0) {
      throw new DurableTurnError({
        code: DurableTurnErrorCode.UnknownSession,
        message: `no session ${JSON.stringify(sessionId)}`,
      });
    }
  }

  /** The turn's row, checked: of this session, finished, its history still there to go back to. */
  private async finishedTurnInHistory(
    client: pg.PoolClient,
    sessionId: string,
    turnKey: string,
    turnId: string,
  ): Promise<TurnRow & { history_end: number }> {
    const { rows } = await client.query(
      `SELECT t.turn_key, t.history_end, t.rewound,
              (t.outcome IS NOT NULL OR w.status IN ${ENDED_WORKFLOW}) AS finished
       FROM ${this.s}.turns t
       LEFT JOIN "${DBOS_SYSTEM_SCHEMA}".workflow_status w ON w.workflow_uuid = t.turn_key
       WHERE t.turn_key = $1 AND t.session_id = $2`,
      [turnKey, sessionId],
    );
    const turn = rows[0] as TurnRow | undefined;
    if (!turn) {
      throw new DurableTurnError({
        code: DurableTurnErrorCode.UnknownTurn,
        message: `no turn ${turnId} was started in session ${sessionId}`,
      });
    }
    if (!turn.finished || turn.history_end === null) {
      throw new DurableTurnError({
        code: DurableTurnErrorCode.TurnNotFinished,
        message: `turn ${turnId} of session ${sessionId} has not finished; fork or rewind at a finished turn`,
      });
    }
    const { rows: replaced } = await client.query(
      `SELECT turn_id FROM ${this.s}.turns
       WHERE session_id = $1 AND NOT rewound AND history_replaced
         AND (created_at, turn_key) > (SELECT created_at, turn_key FROM ${this.s}.turns WHERE turn_key = $2)
       LIMIT 1`,
      [sessionId, turn.turn_key],
    );
    // A turn that stored no message (aborted or cancelled before it ran) is cut where the turn before it in the
    // history ended, once that one finished (it may have ended after this one).
    const { rows: empty } = await client.query(
      `SELECT p.history_end, p.history_end IS NULL AS unfinished FROM ${this.s}.turns t JOIN ${this.s}.turns p
         ON p.session_id = t.session_id AND NOT p.rewound AND (p.created_at, p.turn_key) < (t.created_at, t.turn_key)
       WHERE t.turn_key = $1 AND NOT EXISTS (SELECT 1 FROM ${this.s}.session_messages m WHERE m.session_id = t.session_id
         AND (m.turn_key = t.turn_key OR left(m.turn_key, length(t.turn_key) + 1) = t.turn_key || '#'))
       ORDER BY p.created_at DESC, p.turn_key DESC LIMIT 1`,
      [turn.turn_key],
    );
    if (empty[0]?.unfinished === true) {
      throw new DurableTurnError({
        code: DurableTurnErrorCode.TurnNotFinished,
        message: `turn ${turnId} of session ${sessionId} ran nothing, and a turn before it has not finished; fork or rewind at it once that one finished`,
      });
    }
    if (empty.length > 0) turn.history_end = Number(empty[0].history_end);
    if (turn.rewound || replaced.length > 0) {
      throw new DurableTurnError({
        code: DurableTurnErrorCode.TurnNotInHistory,
        message: turn.rewound
          ? `turn ${turnId} of session ${sessionId} was taken out of its history by a rewind`
          : `turn ${replaced[0].turn_id} of session ${sessionId} replaced the history after turn ${turnId} (a compaction): the history as turn ${turnId} left it is gone`,
      });
    }
    return turn as TurnRow & { history_end: number };
  }
}

function stateOf(workflowStatus: string | null, outcome: string | null): SessionTurnState {
  if (outcome !== null) return "finished";
  switch (workflowStatus) {
    case null:
    case "ENQUEUED":
    case "DELAYED":
      return "queued";
    case "PENDING":
      return "running";
    case "SUCCESS":
      return "finished";
    default:
      return "failed";
  }
}

function sessionExists(sessionId: string): DurableTurnError {
  return new DurableTurnError({
    code: DurableTurnErrorCode.SessionExists,
    message: `session ${JSON.stringify(sessionId)} already exists; fork into a new session id`,
  });
}

/** A `timestamptz` as Postgres prints it (`2026-12-05 21:15:00.123456+00`): a cursor's time, to the microsecond. */
const CURSOR_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,6})?[+-]\d{2}(:\d{2})?$/;

function encodeCursor(createdAt: string, sessionId: string): string {
  return Buffer.from(JSON.stringify([createdAt, sessionId])).toString("base64url");
}

function decodeCursor(cursor: string): { createdAt: string; sessionId: string } {
  try {
    const [createdAt, sessionId] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown[];
    if (typeof createdAt === "string" && typeof sessionId === "string" && CURSOR_TIME.test(createdAt))
      return { createdAt, sessionId };
  } catch {
    // reported below
  }
  throw new DurableTurnError({
    code: DurableTurnErrorCode.InvalidInput,
    message: "after must be the next cursor of an earlier page",
  });
}
