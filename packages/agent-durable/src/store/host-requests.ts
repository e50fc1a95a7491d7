import type { ActionAnswer, ActionRequiredKind } from "@turnkit/protocol";
import type pg from "pg";
import { quoteIdent } from "./schema.js";
import { assertClaimed, claimCte, type TurnClaim } from "./turn-claim.js";

/** A request as {@link HostRequests.ask} found it: whether this call stored it, and its deadline. */
export interface StoredHostRequest {
  /** True when this call stored the request; false when an earlier execution of the turn had. */
  created: boolean;
  /** When the wait ends without an answer, in epoch ms; fixed by the first ask, so a restart does not extend it. */
  deadlineMs: number;
}

/**
 * What code in a durable turn's tool calls asked the host (`ctx.askHost`),
 * and the answers: one row per `(turn, request id)`. Requests are written
 * by the asking execution (carrying its claim), answers by any client
 * (`DurableTurnClient.respond`); the first answer wins.
 */
export class HostRequests {
  private readonly table: string;
  private readonly events: string;

  constructor(
    private readonly pool: pg.Pool,
    schema: string,
  ) {
    this.table = `${quoteIdent(schema)}.host_requests`;
    this.events = `${quoteIdent(schema)}.events`;
  }

  /**
   * Stores a request unless the turn asked it before (an execution that
   * died while it waited), in the same statement as the check of `claim`;
   * throws `superseded` when the claim no longer holds.
   */
  async ask(
    claim: TurnClaim,
    request: { requestId: string; kind: ActionRequiredKind; deadlineMs: number },
  ): Promise<StoredHostRequest> {
    const { rows } = await this.pool.query(
      `WITH ${claimCte(claim, 1, 2)},
       stored AS (
         INSERT INTO ${this.table} (turn_key, request_id, kind, deadline_ms)
         SELECT $1, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM claim)
         ON CONFLICT (turn_key, request_id) DO NOTHING
         RETURNING deadline_ms
       )
       SELECT EXISTS (SELECT 1 FROM claim) AS claimed,
              (SELECT deadline_ms FROM stored) AS created,
              (SELECT deadline_ms FROM ${this.table} WHERE turn_key = $1 AND request_id = $3) AS earlier`,
      [claim.turnKey, claim.token, request.requestId, request.kind, request.deadlineMs],
    );
    assertClaimed(claim, rows[0].claimed === true);
    const created = rows[0].created !== null;
    return { created, deadlineMs: Number(created ? rows[0].created : rows[0].earlier) };
  }

  /** The answer to a request, or `undefined` while there is none. */
  async answerOf(turnKey: string, requestId: string): Promise<ActionAnswer | undefined> {
    const { rows } = await this.pool.query(`SELECT answer FROM ${this.table} WHERE turn_key = $1 AND request_id = $2`, [
      turnKey,
      requestId,
    ]);
    return (rows[0]?.answer as ActionAnswer | null) ?? undefined;
  }

  /** What a request asks and whether it was withdrawn, or `undefined` when the turn never asked it. */
  async requestOf(
    turnKey: string,
    requestId: string,
  ): Promise<{ kind: ActionRequiredKind; withdrawn: boolean } | undefined> {
    const { rows } = await this.pool.query(
      `SELECT kind, withdrawn FROM ${this.table} WHERE turn_key = $1 AND request_id = $2`,
      [turnKey, requestId],
    );
    return rows[0] ? { kind: rows[0].kind as ActionRequiredKind, withdrawn: rows[0].withdrawn === true } : undefined;
  }

  /**
   * Stores `answer` unless the request has one already (the first answer
   * wins) or was withdrawn; resolves `false` only when it was withdrawn.
   */
  async answer(turnKey: string, requestId: string, answer: ActionAnswer): Promise<boolean> {
    const { rows } = await this.pool.query(
      `WITH stored AS (
         UPDATE ${this.table} SET answer = $3 WHERE turn_key = $1 AND request_id = $2 AND answer IS NULL AND NOT withdrawn
         RETURNING 1
       )
       SELECT EXISTS (SELECT 1 FROM stored) OR NOT (SELECT withdrawn FROM ${this.table} WHERE turn_key = $1 AND request_id = $2) AS ok`,
      [turnKey, requestId, JSON.stringify(answer)],
    );
    return rows[0].ok !== false;
  }

  /**
   * Withdraws what one tool call asked and nobody will take any more (the
   * call was given up after a restart): every request of the call (ids
   * `<kind>:<call>:<n>`, where `call` is the call's scoped name) whose
   * `action.required` the log holds without its closing `action.request`
   * trace. Marked withdrawn (a later answer is refused) in the statement
   * that checks `claim`; returns them in request id order, for their
   * closing traces. Throws `superseded` when the claim no longer holds.
   */
  async withdrawOpen(claim: TurnClaim, call: string): Promise<{ requestId: string; kind: ActionRequiredKind }[]> {
    const { rows } = await this.pool.query(
      `WITH ${claimCte(claim, 1, 2)},
       open AS (
         SELECT h.request_id FROM ${this.table} h
         WHERE h.turn_key = $1
           AND left(h.request_id, length(h.kind) + length($3) + 2) = h.kind || ':' || $3 || ':'
           AND substr(h.request_id, length(h.kind) + length($3) + 3) ~ '^[0-9]+$'
           AND EXISTS (SELECT 1 FROM ${this.events} e WHERE e.turn_key = $1 AND e.type = 'action.required'
                       AND e.event->'payload'->>'requestId' = h.request_id)
           AND NOT EXISTS (SELECT 1 FROM ${this.events} c WHERE c.turn_key = $1 AND c.type = 'debug.trace'
                           AND c.event->'payload'->>'phase' = 'action.request'
                           AND c.event->'payload'->'attrs'->>'requestId' = h.request_id)
       ),
       withdrawn AS (
         UPDATE ${this.table} SET withdrawn = true
         WHERE turn_key = $1 AND request_id IN (SELECT request_id FROM open) AND EXISTS (SELECT 1 FROM claim)
         RETURNING request_id, kind
       )
       SELECT EXISTS (SELECT 1 FROM claim) AS claimed,
              coalesce((SELECT json_agg(json_build_object('requestId', request_id, 'kind', kind) ORDER BY request_id)
                        FROM withdrawn), '[]'::json) AS withdrawn`,
      [claim.turnKey, claim.token, call],
    );
    assertClaimed(claim, rows[0].claimed === true);
    return rows[0].withdrawn;
  }
}
