import { performance } from "node:perf_hooks";
import type pg from "pg";
import { DBOS_SYSTEM_SCHEMA } from "../defaults.js";
import { assertClaimed, claimCte, type TurnClaim } from "./turn-claim.js";

/** One step of a turn as DBOS's step table holds it (the columns DBOS revives a step's result from). */
export interface StoredStep {
  functionName: string;
  output: string | null;
  error: string | null;
  serialization: string | null;
}

/** A step's record to store: its position in the workflow, its name, its serialised result or error, its times. */
export interface StepRecord extends StoredStep {
  functionId: number;
  startedAtMs: number;
  completedAtMs: number;
  applicationName: string | null;
}

/** A SQL condition and the parameters it refers to. */
export interface SqlCondition {
  sql: string;
  params: unknown[];
}

/** The parameters of {@link StepRecords.record}'s statement before a condition's own. */
const RECORD_PARAMS = 10;

/**
 * The records of a turn's model requests and tool calls, kept in DBOS's own
 * step table (`operation_outputs`), where `DBOS.runStep` keeps them, so
 * DBOS's tools list them and a replay by `DBOS.runStep` would find them.
 * Read once per execution ({@link load}) and written in one claimed
 * statement per step ({@link record}), instead of DBOS's seven round trips
 * per step (two cancellation checks and a read before it; `BEGIN`, an owner
 * lock, the `INSERT` and `COMMIT` after it).
 *
 * Relies on DBOS 5.3's table layout, pinned by version and tested by
 * `test/recorded-step.test.ts`.
 */
export class StepRecords {
  private readonly table = `"${DBOS_SYSTEM_SCHEMA}".operation_outputs`;

  constructor(private readonly pool: pg.Pool) {}

  /** Every step recorded for the workflow so far, by its position (DBOS's function id). */
  async load(workflowId: string): Promise<Map<number, StoredStep>> {
    const { rows } = await this.pool.query(
      `SELECT function_id, function_name, output, error, serialization FROM ${this.table} WHERE workflow_uuid = $1`,
      [workflowId],
    );
    return new Map(
      rows.map((row) => [
        Number(row.function_id),
        { functionName: row.function_name, output: row.output, error: row.error, serialization: row.serialization },
      ]),
    );
  }

  /**
   * Stores a step's record in the same statement as the check that `claim`
   * still holds (locking the workflow row against a takeover, as DBOS's own
   * owner check does); stores nothing and throws `superseded` when it no
   * longer holds (a statement that found it held confirms it, see
   * `TurnClaim.confirm`). A record already stored at that position fails the
   * statement (a unique key): an execution records each step once. Once
   * stored, the claim holds only while the record is kept (see
   * `TurnClaim.noteRecords`). With
   * `condition` (its parameters numbered from the one it is given; `$1` is
   * the turn key), stores the record only when the condition holds, and
   * returns whether it did.
   */
  async record(claim: TurnClaim, step: StepRecord, condition?: (firstParam: number) => SqlCondition): Promise<boolean> {
    const extra = condition?.(RECORD_PARAMS + 1);
    const sentAt = performance.now();
    const { rows } = await this.pool.query(
      `WITH ${claimCte(claim, 1, 2)},
       ins AS (
         INSERT INTO ${this.table} (workflow_uuid, function_id, function_name, output, error, serialization,
           started_at_epoch_ms, completed_at_epoch_ms, application_name, retention_timestamp)
         SELECT $1, $3, $4, $5, $6, $7, $8, $9, $10, (EXTRACT(EPOCH FROM now()) * 1000)::bigint
         WHERE EXISTS (SELECT 1 FROM claim)${extra ? ` AND (${extra.sql})` : ""}
         RETURNING 1
       )
       SELECT EXISTS (SELECT 1 FROM claim) AS claimed, (SELECT count(*) FROM ins) AS stored`,
      [
        claim.turnKey,
        claim.token,
        step.functionId,
        step.functionName,
        step.output,
        step.error,
        step.serialization,
        step.startedAtMs,
        step.completedAtMs,
        step.applicationName,
        ...(extra?.params ?? []),
      ],
    );
    assertClaimed(claim, rows[0].claimed === true);
    claim.confirm(sentAt);
    const stored = Number(rows[0].stored) > 0;
    // A commit that does not wait for the disk (see `TurnClaim`): the execution's next writes check it is kept.
    if (stored) claim.noteRecords([step.functionId], performance.now());
    return stored;
  }
}
