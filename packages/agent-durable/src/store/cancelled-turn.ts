import { createUserMessage, type TurnInputMessage } from "@turnkit/agent-core";
import type { AgentMessage } from "@turnkit/agent-loop";
import {
  createRuntimeEvent,
  outcomeToStatus,
  type ProtocolAnyMessage,
  type RuntimeEvent,
  type RuntimeEventPayloadMap,
  type RuntimeEventType,
  type TerminalStatusEvent,
  type TurnOutcome,
} from "@turnkit/protocol";
import type pg from "pg";
import { DBOS_SYSTEM_SCHEMA, EVENTS_CHANNEL, TURN_WORKFLOW_NAME } from "../defaults.js";
import { outcomeOfStatus } from "../turn/outcome-of-status.js";
import { turnRefOfWorkflowId } from "../turn/turn-request.js";
import { quoteIdent, TERMINAL_ROW } from "./schema.js";
import { inTransaction } from "./transaction.js";

/**
 * The result text of a tool call a cancelled turn left without its result:
 * the call may or may not have taken effect.
 */
export const CANCELLED_TOOL_RESULT_TEXT =
  "The turn was cancelled (its workflow was cancelled with DBOS's tools) while this tool call was pending; it may or may not have taken effect.";

/** The `debug.trace` phase that names a cancellation in the log, right before the turn's `aborted` ending. */
export const CANCELLED_TRACE_PHASE = "durable.cancelled";

/**
 * Ends turn `turnKey` whose DBOS workflow was cancelled with DBOS's own
 * tools (`cancelWorkflow`, a workflow timeout), which stops the workflow
 * without the turn writing its ending. The ending is the one an abort
 * gives, written here in one transaction that holds the workflow's row
 * (a DBOS resume waits for it) and the session's:
 *
 * - every tool call the turn's history left unanswered gets an error result
 *   ({@link CANCELLED_TOOL_RESULT_TEXT}), stored after the turn's last
 *   message and announced by a `message.persisted`, with the messages the
 *   turn stored and had not yet announced when it was cancelled;
 * - the turn's intake closes; each accepted steering message the history
 *   does not hold, and the turn's own user message when the history does
 *   not hold it (the turn was cancelled before it stored it), is handed back
 *   in `undeliveredMessages`;
 * - each question a tool asked (`ctx.askHost`) that has no answer is
 *   withdrawn (`respond` refuses it), with its closing `action.request` trace;
 * - a `debug.trace` (phase {@link CANCELLED_TRACE_PHASE}, level `warn`)
 *   names the cancellation, and the terminal `session.status` `aborted`
 *   follows (with a `running` status first when the turn never logged one);
 * - the same `aborted` outcome is stored as the turn's outcome.
 *
 * The cancelled execution writes nothing meanwhile: DBOS's cancel revoked
 * its claim. Resolves `true` when it wrote the ending, `false` when the
 * workflow is not cancelled (or is no turn) or the log had ended already
 * (cancelled after the turn logged its ending, before it stored its
 * outcome: the outcome the log ends with is stored then); so calling it
 * again, from any process, changes nothing.
 */
export async function closeCancelledTurn(pool: pg.Pool, schema: string, turnKey: string): Promise<boolean> {
  const s = quoteIdent(schema);
  return inTransaction(pool, async (db) => {
    const { rows: workflow } = await db.query(
      `SELECT status FROM "${DBOS_SYSTEM_SCHEMA}".workflow_status WHERE workflow_uuid = $1 AND name = $2 FOR UPDATE`,
      [turnKey, TURN_WORKFLOW_NAME],
    );
    if (workflow[0]?.status !== "CANCELLED") return false;
    const { rows: ended } = await db.query(`SELECT event FROM ${s}.events WHERE turn_key = $1 AND ${TERMINAL_ROW}`, [
      turnKey,
    ]);
    if (ended.length > 0) {
      // Cancelled after its log ended, before its last step stored the outcome: the outcome the log ends with.
      const ending = (ended[0] as { event: TerminalStatusEvent }).event;
      await db.query(
        `UPDATE ${s}.turns SET outcome = $2, history_end = (${historyEndSql(s)}) WHERE turn_key = $1 AND outcome IS NULL`,
        [turnKey, JSON.stringify(outcomeOfStatus(ending.payload))],
      );
      return false;
    }
    const ref = turnRefOfWorkflowId(turnKey);
    if (ref === undefined) return false;
    // The session's row, then the turn's: the order every transaction locks them in. The session's row also keeps
    // two closers of one session from writing its history at the same positions.
    await db.query(`INSERT INTO ${s}.sessions (session_id) VALUES ($1) ON CONFLICT DO NOTHING`, [ref.sessionId]);
    await db.query(`SELECT 1 FROM ${s}.sessions WHERE session_id = $1 FOR UPDATE`, [ref.sessionId]);
    await db.query(
      `INSERT INTO ${s}.turns (turn_key, session_id, turn_id) VALUES ($1, $2, $3) ON CONFLICT (turn_key) DO NOTHING`,
      [turnKey, ref.sessionId, ref.turnId],
    );
    const { rows: before } = await db.query(`SELECT abort_requested FROM ${s}.turns WHERE turn_key = $1`, [turnKey]);
    const aborted = before[0]?.abort_requested === true;
    const { rows: turn } = await db.query(
      `UPDATE ${s}.turns SET intake_closed = true, abort_requested = true WHERE turn_key = $1 RETURNING user_message`,
      [turnKey],
    );
    const userMessage = (turn[0]?.user_message ?? undefined) as TurnInputMessage | undefined;

    // The history: this turn's messages, and results for the calls its last tool-calling message left open.
    const { rows: stored } = await db.query(
      `SELECT position, turn_key, message FROM ${s}.session_messages WHERE session_id = $1 ORDER BY position`,
      [ref.sessionId],
    );
    const own = stored
      .filter((row: { turn_key: string }) => row.turn_key === turnKey || row.turn_key.startsWith(`${turnKey}#`))
      .map((row: { message: AgentMessage }) => row.message);
    const answers = unansweredCallResults(own);
    // Stored before the turn logged their announcement (the cancel came in between): announced with the answers.
    const unannounced = own.slice(await announcedCount(db, s, turnKey));
    const next = stored.length === 0 ? 0 : Number(stored[stored.length - 1].position) + 1;
    if (answers.length > 0) {
      await db.query(
        `INSERT INTO ${s}.session_messages (session_id, position, turn_key, message)
         SELECT $1, p, $2, m::json FROM unnest($3::int[], $4::text[]) AS u(p, m)`,
        [ref.sessionId, turnKey, answers.map((_, i) => next + i), answers.map((m) => JSON.stringify(m))],
      );
    }

    // Handed back: what the history does not hold, in the order it was sent.
    const heldTexts = own.flatMap(userTextOf);
    const handedBack: TurnInputMessage[] = [];
    if (userMessage !== undefined && !takeText(heldTexts, userMessage.text)) handedBack.push(userMessage);
    const { rows: steering } = await db.query(`SELECT id, message FROM ${s}.steering WHERE turn_key = $1 ORDER BY id`, [
      turnKey,
    ]);
    const notDelivered = steering.filter(
      (row: { message: TurnInputMessage }) => !takeText(heldTexts, row.message.text),
    );
    handedBack.push(...notDelivered.map((row: { message: TurnInputMessage }) => row.message));
    await db.query(`UPDATE ${s}.steering SET taken_at_poll = 0 WHERE id = ANY($1::bigint[])`, [
      notDelivered.map((row: { id: string }) => row.id),
    ]);

    const { rows: withdrawn } = await db.query(
      `UPDATE ${s}.host_requests SET withdrawn = true WHERE turn_key = $1 AND answer IS NULL AND NOT withdrawn
       RETURNING request_id, kind`,
      [turnKey],
    );

    // The log's ending.
    const outcome: TurnOutcome = {
      kind: "aborted",
      ...(handedBack.length > 0 && {
        undeliveredMessages: handedBack.map(
          (m) => createUserMessage(m.text, { images: m.images, batchId: m.batchId }) as ProtocolAnyMessage,
        ),
      }),
    };
    const { rows: last } = await db.query(`SELECT coalesce(max(seq), 0) AS seq FROM ${s}.events WHERE turn_key = $1`, [
      turnKey,
    ]);
    const events: RuntimeEvent[] = [];
    const add = <T extends RuntimeEventType>(type: T, payload: RuntimeEventPayloadMap[T]) => {
      const seq = Number(last[0].seq) + events.length + 1;
      events.push(
        createRuntimeEvent({
          eventId: `${turnKey}#${seq}`,
          sessionId: ref.sessionId,
          turnId: ref.turnId,
          seq,
          type,
          payload,
        }) as RuntimeEvent,
      );
    };
    if (Number(last[0].seq) === 0) add("session.status", { status: "running" });
    if (unannounced.length + answers.length > 0)
      add("message.persisted", {
        reason: "messageDelta",
        messages: [...unannounced, ...answers] as unknown as ProtocolAnyMessage[],
      });
    for (const { request_id: requestId, kind } of withdrawn as { request_id: string; kind: string }[]) {
      add("debug.trace", {
        phase: "action.request",
        level: "info",
        message: `${kind} ${requestId} withdrawn: the turn was cancelled`,
        attrs: { requestId, kind, outcome: "withdrawn" },
      });
    }
    add("debug.trace", {
      phase: CANCELLED_TRACE_PHASE,
      level: "warn",
      message: aborted
        ? "the turn was aborted and its workflow cancelled before it ran (it waited in its session's queue); the turn ends aborted"
        : "the turn's workflow was cancelled with DBOS's tools; the turn ends aborted",
      attrs: { workflowId: turnKey },
    });
    add("session.status", outcomeToStatus(outcome));
    await db.query(
      `INSERT INTO ${s}.events (turn_key, seq, type, event)
       SELECT $1, s, t, e::json FROM unnest($2::int[], $3::text[], $4::text[]) AS u(s, t, e)`,
      [turnKey, events.map((e) => e.seq), events.map((e) => e.type), events.map((e) => JSON.stringify(e))],
    );
    await db.query("SELECT pg_notify($1, $2)", [EVENTS_CHANNEL, turnKey]);
    await db.query(`UPDATE ${s}.turns SET outcome = $2, history_end = (${historyEndSql(s)}) WHERE turn_key = $1`, [
      turnKey,
      JSON.stringify(outcome),
    ]);
    return true;
  });
}

/**
 * The keys of the cancelled turns without a stored outcome: of session `sessionId`
 * (every one of them, as a turn that starts must see their histories
 * answered), or else those cancelled since `sinceMs` (DBOS's clock, epoch ms).
 */
export async function unclosedCancelledTurns(
  pool: pg.Pool,
  schema: string,
  scope: { sessionId: string } | { sinceMs: number },
): Promise<string[]> {
  const s = quoteIdent(schema);
  const { rows } =
    "sessionId" in scope
      ? await pool.query(
          `SELECT t.turn_key FROM ${s}.turns t
           JOIN "${DBOS_SYSTEM_SCHEMA}".workflow_status w ON w.workflow_uuid = t.turn_key
           WHERE t.session_id = $1 AND t.outcome IS NULL AND w.status = 'CANCELLED'`,
          [scope.sessionId],
        )
      : await pool.query(
          `SELECT w.workflow_uuid AS turn_key FROM "${DBOS_SYSTEM_SCHEMA}".workflow_status w
           WHERE w.status = 'CANCELLED' AND w.name = $1 AND w.completed_at >= $2
             AND NOT EXISTS (SELECT 1 FROM ${s}.turns t WHERE t.turn_key = w.workflow_uuid AND t.outcome IS NOT NULL)`,
          [TURN_WORKFLOW_NAME, scope.sinceMs],
        );
  return rows.map((row: { turn_key: string }) => row.turn_key);
}

/**
 * Where turn `$1`'s history ends in its session (`schema` `s`): after its
 * last message (its own, or a replacement it made), or, when it stored
 * none (cancelled before it did), where the session's previous turn still
 * in its history ended (0 for the first): a turn a rewind took out of the
 * history ended where later turns' messages may be now.
 */
function historyEndSql(s: string): string {
  return `SELECT coalesce(
    (SELECT max(m.position) + 1 FROM ${s}.session_messages m
     WHERE m.session_id = t.session_id AND (m.turn_key = t.turn_key OR left(m.turn_key, length(t.turn_key) + 1) = t.turn_key || '#')),
    (SELECT p.history_end FROM ${s}.turns p
     WHERE p.session_id = t.session_id AND p.history_end IS NOT NULL AND NOT p.rewound
       AND (p.created_at, p.turn_key) < (t.created_at, t.turn_key)
     ORDER BY p.created_at DESC, p.turn_key DESC LIMIT 1),
    0) FROM ${s}.turns t WHERE t.turn_key = $1`;
}

/**
 * How many of the turn's history messages its log announced (its own
 * `message.persisted` events: a replacement counts its messages, a delta
 * adds its own). The history holds them in that order, so those it holds
 * beyond this number were stored but not yet announced.
 */
async function announcedCount(db: pg.PoolClient, s: string, turnKey: string): Promise<number> {
  const { rows } = await db.query(
    `SELECT event->'payload'->>'reason' AS reason, json_array_length(event->'payload'->'messages') AS n
     FROM ${s}.events WHERE turn_key = $1 AND type = 'message.persisted' AND (event->'origin') IS NULL ORDER BY seq`,
    [turnKey],
  );
  let count = 0;
  for (const row of rows as { reason: string; n: number }[])
    count = row.reason === "replaceMessages" ? Number(row.n) : count + Number(row.n);
  return count;
}

/** Error results for the calls of the last message in `messages` that asked for tool calls and lacks some results. */
function unansweredCallResults(messages: readonly AgentMessage[]): AgentMessage[] {
  let open: { id: string; name: string }[] = [];
  for (const message of messages) {
    if (message.role === "assistant") {
      const failed = message.stopReason === "error" || message.stopReason === "aborted";
      open = failed ? [] : message.content.flatMap((b) => (b.type === "toolCall" ? [{ id: b.id, name: b.name }] : []));
    } else if (message.role === "toolResult") {
      open = open.filter((call) => call.id !== message.toolCallId);
    }
  }
  return open.map((call) => ({
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: "text", text: CANCELLED_TOOL_RESULT_TEXT }],
    details: {},
    isError: true,
    timestamp: Date.now(),
  }));
}

/** The text of a user message, as one entry (none for other roles). */
function userTextOf(message: AgentMessage): string[] {
  if (message.role !== "user") return [];
  return [
    typeof message.content === "string"
      ? message.content
      : message.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
  ];
}

/** Removes one `text` from `texts` and says whether there was one. */
function takeText(texts: string[], text: string): boolean {
  const at = texts.indexOf(text);
  if (at < 0) return false;
  texts.splice(at, 1);
  return true;
}

/**
 * The turns cancelled with DBOS's tools, in one schema: finds those without
 * an ending and ends them (see {@link closeCancelledTurn}).
 */
export class CancelledTurns {
  constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
  ) {}

  /** {@link closeCancelledTurn} on this schema. */
  close(turnKey: string): Promise<boolean> {
    return closeCancelledTurn(this.pool, this.schema, turnKey);
  }

  /** Ends every cancelled turn of `sessionId` that has no ending; resolves once all have one. */
  async closeInSession(sessionId: string): Promise<void> {
    for (const key of await unclosedCancelledTurns(this.pool, this.schema, { sessionId })) await this.close(key);
  }

  /** Ends every turn cancelled since `sinceMs` (DBOS's clock, epoch ms) that has no ending; resolves how many it ended. */
  async closeSince(sinceMs: number): Promise<number> {
    let closed = 0;
    for (const key of await unclosedCancelledTurns(this.pool, this.schema, { sinceMs }))
      if (await this.close(key)) closed++;
    return closed;
  }

  /** The outcome `close` stored for turn `turnKey`, or `undefined` when no cancellation ended it. */
  async closedOutcome(turnKey: string): Promise<TurnOutcome | undefined> {
    const s = quoteIdent(this.schema);
    const { rows } = await this.pool.query(
      `SELECT outcome FROM ${s}.turns WHERE turn_key = $1 AND outcome IS NOT NULL AND EXISTS (
         SELECT 1 FROM ${s}.events WHERE turn_key = $1 AND type = 'debug.trace'
           AND (event->'payload'->>'phase') = $2 AND (event->'origin') IS NULL)`,
      [turnKey, CANCELLED_TRACE_PHASE],
    );
    return (rows[0]?.outcome as TurnOutcome | undefined) ?? undefined;
  }
}
