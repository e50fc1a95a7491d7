import pg from "pg";
import type { DurableTurnRef } from "../../src/index.js";

/** One event row as it was inserted: by which worker (its connection's `application_name`) and when (server clock). */
export interface AuditedWrite {
  seq: number;
  /** The worker id, from `application_name` `turnkit-worker <id>`. */
  worker: string;
  /** Server time of the insert, in ms since the epoch. */
  at: number;
}

/**
 * Records who inserted each event row and when, with a trigger on the
 * event log (test-only, installed in the test's own database): a write
 * that inserts nothing (a seq already stored, a revoked claim) leaves no
 * row. Kept outside the workers, so a test can tell which worker wrote what.
 */
export class EventAudit {
  private constructor(private readonly pool: pg.Pool) {}

  static async install(databaseUrl: string): Promise<EventAudit> {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    await pool.query(`
      CREATE TABLE IF NOT EXISTS turnkit_durable.event_audit (turn_key text, seq int, writer text, at timestamptz);
      CREATE OR REPLACE FUNCTION turnkit_durable.audit_event() RETURNS trigger AS $$
      BEGIN
        INSERT INTO turnkit_durable.event_audit VALUES (NEW.turn_key, NEW.seq, current_setting('application_name'), clock_timestamp());
        RETURN NULL;
      END $$ LANGUAGE plpgsql;
      DROP TRIGGER IF EXISTS audit_event ON turnkit_durable.events;
      CREATE TRIGGER audit_event AFTER INSERT ON turnkit_durable.events FOR EACH ROW EXECUTE FUNCTION turnkit_durable.audit_event();
    `);
    return new EventAudit(pool);
  }

  /** Every insert of the turn's events, in insert order. */
  async writes(turn: DurableTurnRef): Promise<AuditedWrite[]> {
    const { rows } = await this.pool.query(
      `SELECT seq, writer, (extract(epoch FROM at) * 1000)::float8 AS at FROM turnkit_durable.event_audit
       WHERE turn_key = $1 ORDER BY at, seq`,
      [turn.workflowId],
    );
    return rows.map((row: { seq: number; writer: string; at: number }) => ({
      seq: row.seq,
      worker: row.writer.replace(/^turnkit-worker /, ""),
      at: row.at,
    }));
  }

  /** The server's clock now, in ms since the epoch (the same clock as {@link AuditedWrite.at}). */
  async now(): Promise<number> {
    const { rows } = await this.pool.query("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now");
    return rows[0].now;
  }

  /** The last heartbeat of worker `workerId`'s launch (server clock, ms), or undefined when it has no lease row. */
  async heartbeatOf(workerId: string): Promise<number | undefined> {
    const { rows } = await this.pool.query(
      "SELECT (extract(epoch FROM heartbeat_at) * 1000)::float8 AS at FROM turnkit_durable.workers WHERE left(executor_id, length($1) + 1) = $1 || '#' ORDER BY heartbeat_at DESC LIMIT 1",
      [workerId],
    );
    return rows[0]?.at;
  }

  /** Deletes the lease row of worker `workerId`'s launch, as a takeover of its lease does. */
  async dropLease(workerId: string): Promise<void> {
    await this.pool.query("DELETE FROM turnkit_durable.workers WHERE left(executor_id, length($1) + 1) = $1 || '#'", [
      workerId,
    ]);
  }

  /** When the turn's workflow was last taken from the queue (DBOS's `started_at_epoch_ms`, server clock, ms). */
  async dequeuedAt(turn: DurableTurnRef): Promise<number> {
    const { rows } = await this.pool.query(
      "SELECT started_at_epoch_ms::float8 AS at FROM dbos.workflow_status WHERE workflow_uuid = $1",
      [turn.workflowId],
    );
    return rows[0]?.at;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
