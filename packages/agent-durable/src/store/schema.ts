import { DBOS } from "@dbos-inc/dbos-sdk";
import type pg from "pg";
import { inTransaction } from "./transaction.js";

/**
 * Creates the tables of the durable layer in `schema` when missing. Safe to
 * run from many processes at once (an advisory lock serialises them).
 *
 * - `sessions`: one row per session: when it was made, and the session and turn it was forked from.
 * - `turns`: one row per started turn: intake closed, abort requested, outcome, label, where its
 *   history ended, whether it replaced the history, whether a rewind took it out of the history.
 * - `events`: the event log, one row per `(turn_key, seq)`, at most one terminal status per turn.
 * - `steering`: messages sent by `steer`, and the poll that took them.
 * - `tool_attempts`: how often each tool call was started (an interrupted call has more than one).
 * - `session_messages`: each session's history, one row per message position.
 * - `workers`: heartbeats, so a live worker recovers the turns of a dead one.
 * - `host_requests`: what tool calls asked the host (`ctx.askHost`), and the answers.
 */
export async function migrateSchema(pool: pg.Pool, schema: string): Promise<void> {
  const s = quoteIdent(schema);
  await inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`turnkit-durable-schema:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.turns (
      turn_key text PRIMARY KEY,
      session_id text NOT NULL,
      turn_id text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      intake_closed boolean NOT NULL DEFAULT false,
      abort_requested boolean NOT NULL DEFAULT false,
      outcome json
    )`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.events (
      turn_key text NOT NULL,
      seq integer NOT NULL,
      type text NOT NULL,
      event json NOT NULL,
      PRIMARY KEY (turn_key, seq)
    )`);
    // One terminal status per turn, whoever writes it (see EventLog).
    await client.query(
      `CREATE UNIQUE INDEX IF NOT EXISTS events_one_terminal ON ${s}.events (turn_key) WHERE ${TERMINAL_ROW}`,
    );
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.steering (
      id bigserial PRIMARY KEY,
      turn_key text NOT NULL,
      message json NOT NULL,
      taken_at_poll integer
    )`);
    await client.query(`CREATE INDEX IF NOT EXISTS steering_turn ON ${s}.steering (turn_key, id)`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.tool_attempts (
      turn_key text NOT NULL,
      tool_call_id text NOT NULL,
      attempts integer NOT NULL,
      PRIMARY KEY (turn_key, tool_call_id)
    )`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.session_messages (
      session_id text NOT NULL,
      position integer NOT NULL,
      turn_key text NOT NULL,
      message json NOT NULL,
      PRIMARY KEY (session_id, position)
    )`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.host_requests (
      turn_key text NOT NULL,
      request_id text NOT NULL,
      kind text NOT NULL,
      deadline_ms bigint NOT NULL,
      answer json,
      PRIMARY KEY (turn_key, request_id)
    )`);
    // Sessions: one row each, made by the first start or by a fork. Turns started before the table existed
    // get theirs once, when it is made.
    const { rows: sessionsTable } = await client.query("SELECT to_regclass($1) AS name", [`${s}.sessions`]);
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.sessions (
      session_id text PRIMARY KEY,
      created_at timestamptz NOT NULL DEFAULT now(),
      forked_from_session text,
      forked_at_turn text
    )`);
    await client.query(
      `CREATE INDEX IF NOT EXISTS sessions_newest ON ${s}.sessions (created_at DESC, session_id DESC)`,
    );
    await client.query(`ALTER TABLE ${s}.turns
      ADD COLUMN IF NOT EXISTS label text,
      ADD COLUMN IF NOT EXISTS history_end integer,
      ADD COLUMN IF NOT EXISTS history_replaced boolean NOT NULL DEFAULT false,
      ADD COLUMN IF NOT EXISTS rewound boolean NOT NULL DEFAULT false`);
    await client.query(`CREATE INDEX IF NOT EXISTS turns_of_session ON ${s}.turns (session_id, created_at)`);
    if (sessionsTable[0].name === null) {
      await client.query(`INSERT INTO ${s}.sessions (session_id, created_at)
        SELECT session_id, min(created_at) FROM ${s}.turns GROUP BY session_id ON CONFLICT DO NOTHING`);
    }
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.workers (
      executor_id text PRIMARY KEY,
      heartbeat_at timestamptz NOT NULL
    )`);
  });
}

/** The condition on an `events` row that holds a terminal status; the one-terminal index has it as its predicate, so a query with the same text uses the index. */
export const TERMINAL_ROW = `type = 'session.status' AND (event->'payload'->>'status') IN ('completed', 'aborted', 'failed')`;

/** The advisory lock every process takes around creating or migrating tables: one at a time per database. */
const MIGRATION_LOCK = "turnkit-durable-migrations";
/** How long a process waits before it tries the migration lock again. */
const MIGRATION_LOCK_RETRY_MS = 50;

/**
 * Creates or migrates every table a worker needs, ours in `schema` and
 * DBOS's system tables, holding a Postgres advisory lock so that processes
 * starting at the same time do it one after the other: DBOS's migrations
 * run concurrently fail ("deadlock detected", "tuple concurrently
 * updated"). On a database already set up this checks and changes nothing.
 * DBOS is then launched with `runMigrations: false`.
 *
 * The lock is tried, not waited for in a statement: a process blocked in
 * `pg_advisory_lock` holds a snapshot, which DBOS's `CREATE INDEX
 * CONCURRENTLY` in the process holding the lock would wait for, forever.
 */
export async function migrateDatabase(pool: pg.Pool, databaseUrl: string, schema: string): Promise<void> {
  const client = await pool.connect();
  try {
    for (;;) {
      const { rows } = await client.query("SELECT pg_try_advisory_lock(hashtext($1)) AS locked", [MIGRATION_LOCK]);
      if (rows[0].locked) break;
      await new Promise((resolve) => setTimeout(resolve, MIGRATION_LOCK_RETRY_MS));
    }
    try {
      await migrateSchema(pool, schema);
      await DBOS.migrate(databaseUrl);
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtext($1))", [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}

/** Quotes a Postgres identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
