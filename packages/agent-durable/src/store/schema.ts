import { ensureSystemDatabase } from "@dbos-inc/dbos-sdk/internal/system_database";
import { GlobalLogger } from "@dbos-inc/dbos-sdk/internal/telemetry/logs";
import type pg from "pg";
import { DBOS_SYSTEM_SCHEMA } from "../defaults.js";
import { inTransaction } from "./transaction.js";

/**
 * The version of the tables {@link migrateSchema} makes; stored in
 * `schema_version`. Raise it with every change to the statements below.
 */
export const SCHEMA_VERSION = 4;

/**
 * The tables in the order every transaction that writes more than one of
 * them locks them: a session's row, then a turn's row, then the rest. The
 * migration locks them in this order too, so it never waits for a lock a
 * turn holds while holding one that turn waits for.
 */
const LOCK_ORDER = [
  "sessions",
  "turns",
  "events",
  "steering",
  "tool_attempts",
  "session_messages",
  "host_requests",
  "workers",
];

/**
 * Creates the tables of the durable layer in `schema` when missing, or
 * brings older ones up to {@link SCHEMA_VERSION}. Safe to run from many
 * processes at once (an advisory lock serialises them), and while turns
 * run: on tables already at this version it only reads `schema_version`
 * and takes no lock on any other table (a worker launches, or a client
 * connects, without waiting for running turns or making them wait). A
 * migration that has work to do first locks every existing table, in the
 * order running turns lock them, so it waits for them, never deadlocks
 * with them.
 *
 * - `sessions`: one row per session: when it was made, and the session and turn it was forked from.
 * - `turns`: one row per started turn: intake closed, abort requested, outcome, label, where its
 *   history ended, whether it replaced the history, whether a rewind took it out of the history, its
 *   user message.
 * - `events`: the event log, one row per `(turn_key, seq)`, at most one terminal status per turn.
 * - `steering`: messages sent by `steer`, and the poll that took them.
 * - `tool_attempts`: how often each tool call was started (an interrupted call has more than one).
 * - `session_messages`: each session's history, one row per message position.
 * - `workers`: heartbeats, so a live worker recovers the turns of a dead one.
 * - `host_requests`: what tool calls asked the host (`ctx.askHost`), the answers, and which were withdrawn.
 * - `schema_version`: one row, the version the tables are at.
 */
export async function migrateSchema(pool: pg.Pool, schema: string): Promise<void> {
  const s = quoteIdent(schema);
  await inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`turnkit-durable-schema:${schema}`]);
    if ((await storedVersion(client, schema)) >= SCHEMA_VERSION) return;
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    const { rows: existing } = await client.query(
      "SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND relkind = 'r'",
      [schema],
    );
    const present = new Set(existing.map((row: { relname: string }) => row.relname));
    const toLock = LOCK_ORDER.filter((table) => present.has(table)).map((table) => `${s}.${quoteIdent(table)}`);
    if (toLock.length > 0) await client.query(`LOCK TABLE ${toLock.join(", ")} IN ACCESS EXCLUSIVE MODE`);
    await createTables(client, s, !present.has("sessions"));
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.schema_version (version integer NOT NULL)`);
    await client.query(`DELETE FROM ${s}.schema_version`);
    await client.query(`INSERT INTO ${s}.schema_version (version) VALUES ($1)`, [SCHEMA_VERSION]);
  });
}

/** The version `schema`'s tables are at: 0 before the first migration (no `schema_version` table). */
async function storedVersion(client: pg.PoolClient, schema: string): Promise<number> {
  const { rows } = await client.query("SELECT to_regclass($1) AS name", [`${quoteIdent(schema)}.schema_version`]);
  if (rows[0].name === null) return 0;
  const { rows: version } = await client.query(
    `SELECT max(version) AS version FROM ${quoteIdent(schema)}.schema_version`,
  );
  return Number(version[0]?.version ?? 0);
}

/** Every table and index of {@link SCHEMA_VERSION}, each made or changed only where missing. */
async function createTables(client: pg.PoolClient, s: string, sessionsNew: boolean): Promise<void> {
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
  // One terminal status per turn, whoever writes it (see EventLog); a sub-agent's own ending (with `origin`) is none.
  // Version 1's index of another name counted a sub-agent's ending too: replaced (version 2).
  await client.query(`DROP INDEX IF EXISTS ${s}.events_one_terminal`);
  // A log written before the index existed may end twice: its first ending is where readers stopped, so what
  // follows it goes, and the index can be made.
  const { rows: index } = await client.query("SELECT to_regclass($1) AS name", [`${s}.events_one_own_terminal`]);
  if (index[0].name === null) {
    await client.query(`DELETE FROM ${s}.events e
      USING (SELECT turn_key, min(seq) AS ended_at FROM ${s}.events WHERE ${TERMINAL_ROW}
             GROUP BY turn_key HAVING count(*) > 1) twice
      WHERE e.turn_key = twice.turn_key AND e.seq > twice.ended_at`);
  }
  await client.query(
    `CREATE UNIQUE INDEX IF NOT EXISTS events_one_own_terminal ON ${s}.events (turn_key) WHERE ${TERMINAL_ROW}`,
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
  // Version 3: a request whose call was given up after a restart is withdrawn; answering it is refused.
  await client.query(
    `ALTER TABLE ${s}.host_requests ADD COLUMN IF NOT EXISTS withdrawn boolean NOT NULL DEFAULT false`,
  );
  // Sessions: one row each, made by the first start or by a fork.
  await client.query(`CREATE TABLE IF NOT EXISTS ${s}.sessions (
    session_id text PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now(),
    forked_from_session text,
    forked_at_turn text
  )`);
  await client.query(`CREATE INDEX IF NOT EXISTS sessions_newest ON ${s}.sessions (created_at DESC, session_id DESC)`);
  await client.query(`ALTER TABLE ${s}.turns
    ADD COLUMN IF NOT EXISTS label text,
    ADD COLUMN IF NOT EXISTS history_end integer,
    ADD COLUMN IF NOT EXISTS history_replaced boolean NOT NULL DEFAULT false,
    ADD COLUMN IF NOT EXISTS rewound boolean NOT NULL DEFAULT false`);
  // Version 4: the turn's user message, which a turn cancelled with DBOS's tools before it stored it hands back.
  await client.query(`ALTER TABLE ${s}.turns ADD COLUMN IF NOT EXISTS user_message json`);
  await client.query(`CREATE INDEX IF NOT EXISTS turns_of_session ON ${s}.turns (session_id, created_at)`);
  // Turns started before the sessions table existed get their sessions once, when it is made.
  if (sessionsNew) {
    await client.query(`INSERT INTO ${s}.sessions (session_id, created_at)
      SELECT session_id, min(created_at) FROM ${s}.turns GROUP BY session_id ON CONFLICT DO NOTHING`);
  }
  await client.query(`CREATE TABLE IF NOT EXISTS ${s}.workers (
    executor_id text PRIMARY KEY,
    heartbeat_at timestamptz NOT NULL
  )`);
}

/**
 * The condition on an `events` row that holds the turn's terminal status (not
 * a sub-agent's, passed on with `origin`); the one-terminal index has it as
 * its predicate, so a query with the same text uses the index.
 */
export const TERMINAL_ROW = `type = 'session.status' AND (event->'payload'->>'status') IN ('completed', 'aborted', 'failed') AND (event->'origin') IS NULL`;

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
 * DBOS is then launched with `runMigrations: false`. Every statement runs
 * on `pool`, DBOS's migration too (instead of the connection of its own
 * `DBOS.migrate` opens), so closing the pool's connections ends the
 * migration wherever it waits: a launch that gives up leaves nothing open.
 *
 * The lock is tried, not waited for in a statement: a process blocked in
 * `pg_advisory_lock` holds a snapshot, which DBOS's `CREATE INDEX
 * CONCURRENTLY` in the process holding the lock would wait for, forever.
 */
export async function migrateDatabase(pool: pg.Pool, databaseUrl: string, schema: string): Promise<void> {
  const client = await pool.connect();
  // A connection lost while held is reported to its statements; as an event with no listener it would end the process.
  const ignore = () => {};
  client.on("error", ignore);
  try {
    for (;;) {
      const { rows } = await client.query("SELECT pg_try_advisory_lock(hashtext($1)) AS locked", [MIGRATION_LOCK]);
      if (rows[0].locked) break;
      await new Promise((resolve) => setTimeout(resolve, MIGRATION_LOCK_RETRY_MS));
    }
    try {
      await migrateSchema(pool, schema);
      // What `DBOS.migrate` does on a database that exists (it was reached), on the pool's connections.
      await ensureSystemDatabase(databaseUrl, new GlobalLogger(), pool, DBOS_SYSTEM_SCHEMA);
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtext($1))", [MIGRATION_LOCK]);
    }
  } finally {
    client.off("error", ignore);
    client.release();
  }
}

/** Quotes a Postgres identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
