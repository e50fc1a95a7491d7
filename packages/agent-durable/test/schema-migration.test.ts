/*
 * The migration every worker launch (and every client connect) runs, while
 * turns run on the same tables: on tables already at the current version it
 * locks nothing a turn uses, and a migration with work to do waits for the
 * turns' transactions without deadlocking with them. (Before, a relaunch
 * took a share lock on `steering`, then waited for an exclusive lock on
 * `turns`, while a turn's steering take held its `turns` row and waited for
 * `steering`: Postgres aborted one of them, failing the turn.) And a log
 * written before the one-ending index existed, which may end twice, does not
 * stop the index from being made.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SCHEMA } from "../src/defaults.js";
import { migrateSchema, SCHEMA_VERSION } from "../src/store/schema.js";
import { startTestPostgres, type TestPostgres } from "../src/testing/index.js";

const s = `"${DEFAULT_SCHEMA}"`;
let postgres: TestPostgres;
let pool: pg.Pool;

beforeAll(async () => {
  postgres = await startTestPostgres();
  pool = new pg.Pool({ connectionString: postgres.url, max: 6, application_name: "migration-test" });
  await migrateSchema(pool, DEFAULT_SCHEMA);
  await pool.query(`INSERT INTO ${s}.turns (turn_key, session_id, turn_id) VALUES ('turn:m:t1', 'm', 't1')`);
  await pool.query(`INSERT INTO ${s}.steering (turn_key, message) VALUES ('turn:m:t1', '{"text":"more"}')`);
});

afterAll(async () => {
  await pool?.end();
  await postgres?.stop();
});

/** A turn's steering take half done: its `turns` row locked, as `SteeringInbox.take` holds it before it updates `steering`. */
async function takeHoldingTurnRow(): Promise<pg.PoolClient> {
  const take = await pool.connect();
  await take.query("BEGIN");
  await take.query(`SELECT abort_requested FROM ${s}.turns WHERE turn_key = 'turn:m:t1' FOR UPDATE`);
  return take;
}

/** Resolves once some other connection of this test waits for a lock (the migration, blocked by the take). */
async function untilSomeoneWaitsForALock(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { rows } = await pool.query(
      "SELECT 1 FROM pg_stat_activity WHERE application_name = 'migration-test' AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
    );
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("the migration never waited for a lock");
}

describe("the schema migration while turns run", () => {
  it("on tables at the current version it waits for no lock a running turn holds", async () => {
    const take = await takeHoldingTurnRow();
    try {
      const migrated = migrateSchema(pool, DEFAULT_SCHEMA).then(() => "migrated" as const);
      const waited = new Promise<"waited">((resolve) => setTimeout(() => resolve("waited"), 3_000));
      expect(await Promise.race([migrated, waited])).toBe("migrated");
      await take.query(`UPDATE ${s}.steering SET taken_at_poll = 1 WHERE turn_key = 'turn:m:t1'`);
      await take.query("COMMIT");
    } finally {
      take.release();
    }
    const { rows } = await pool.query(`SELECT version FROM ${s}.schema_version`);
    expect(rows).toEqual([{ version: SCHEMA_VERSION }]);
  });

  it("an upgrade waits for a running turn's transaction and never deadlocks with it", async () => {
    // Tables as a version without the version row left them: the migration has work to do.
    await pool.query(`DROP TABLE IF EXISTS ${s}.schema_version`);
    await pool.query(`DROP INDEX ${s}.steering_turn`);
    const take = await takeHoldingTurnRow();
    let migrated: Promise<void> | undefined;
    try {
      migrated = migrateSchema(pool, DEFAULT_SCHEMA);
      // Keep a rejection for the assertion below (not an unhandled one while the take goes on).
      migrated.catch(() => {});
      await untilSomeoneWaitsForALock();
      // The take goes on to the steering row it takes while the migration waits: no deadlock, no error.
      await take.query(`UPDATE ${s}.steering SET taken_at_poll = 2 WHERE turn_key = 'turn:m:t1'`);
      await take.query("COMMIT");
    } finally {
      take.release();
    }
    await expect(migrated).resolves.toBeUndefined();
    const { rows } = await pool.query(
      `SELECT (SELECT max(version) FROM ${s}.schema_version) AS version, to_regclass('${s}.steering_turn') IS NOT NULL AS indexed, (SELECT taken_at_poll FROM ${s}.steering) AS taken`,
    );
    expect(rows).toEqual([{ version: SCHEMA_VERSION, indexed: true, taken: 2 }]);
  });

  it("a log that ends twice (written before the one-ending index) keeps its first ending, and the index is made", async () => {
    await pool.query(`DROP TABLE IF EXISTS ${s}.schema_version`);
    await pool.query(`DROP INDEX ${s}.events_one_own_terminal`);
    const status = (seq: number, status: string) => [
      "turn:m:twice",
      seq,
      "session.status",
      JSON.stringify({ seq, type: "session.status", payload: { status } }),
    ];
    for (const row of [status(1, "running"), status(2, "completed"), status(3, "failed"), status(4, "completed")])
      await pool.query(`INSERT INTO ${s}.events (turn_key, seq, type, event) VALUES ($1, $2, $3, $4)`, row);
    await pool.query(`INSERT INTO ${s}.events (turn_key, seq, type, event) VALUES ($1, $2, $3, $4)`, [
      "turn:m:once",
      1,
      "session.status",
      JSON.stringify({ seq: 1, type: "session.status", payload: { status: "completed" } }),
    ]);

    await migrateSchema(pool, DEFAULT_SCHEMA);
    const { rows } = await pool.query(
      `SELECT turn_key, seq, event->'payload'->>'status' AS status FROM ${s}.events ORDER BY turn_key, seq`,
    );
    expect(rows).toEqual([
      { turn_key: "turn:m:once", seq: 1, status: "completed" },
      { turn_key: "turn:m:twice", seq: 1, status: "running" },
      { turn_key: "turn:m:twice", seq: 2, status: "completed" },
    ]);
    // The index holds from now on.
    await expect(
      pool.query(`INSERT INTO ${s}.events (turn_key, seq, type, event) VALUES ($1, $2, $3, $4)`, status(5, "aborted")),
    ).rejects.toMatchObject({ code: "23505" });
  });
});
