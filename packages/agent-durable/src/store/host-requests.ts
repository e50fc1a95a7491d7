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

  constructor(
    private readonly pool: pg.Pool,
    schema: string,
  ) {
    this.table = `${quoteIdent(schema)}.host_requests`;
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
      `WITH ${claimCte(1, 2)},
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

  /** What a request asks, or `undefined` when the turn never asked it. */
  async kindOf(turnKey: string, requestId: string): Promise<ActionRequiredKind | undefined> {
    const { rows } = await this.pool.query(`SELECT kind FROM ${this.table} WHERE turn_key = $1 AND request_id = $2`, [
      turnKey,
      requestId,
    ]);
    return rows[0]?.kind as ActionRequiredKind | undefined;
  }

  /** Stores `answer` unless the request has one already (the first answer wins). */
  async answer(turnKey: string, requestId: string, answer: ActionAnswer): Promise<void> {
    await this.pool.query(
      `UPDATE ${this.table} SET answer = $3 WHERE turn_key = $1 AND request_id = $2 AND answer IS NULL`,
      [turnKey, requestId, JSON.stringify(answer)],
    );
  }
}
