import { DBOS } from "@dbos-inc/dbos-sdk";
import pg from "pg";
import { DEFAULT_SCHEMA } from "../defaults.js";
import { migrateSchema } from "../store/schema.js";
import { startEmbeddedServer } from "./embedded-server.js";

/**
 * The environment variable through which a shared server reaches
 * `startTestPostgres` in other processes: the connection string of its
 * template database.
 */
export const SHARED_TEST_POSTGRES_ENV = "TURNKIT_TEST_POSTGRES";

const TEMPLATE_DATABASE = "turnkit_template";

/** A Postgres server that many test files share, each in a database of its own. */
export interface SharedTestPostgres {
  /**
   * What processes started from now on need in their environment to use
   * this server ({@link SHARED_TEST_POSTGRES_ENV}); assign it to
   * `process.env` in a test runner's global setup.
   */
  readonly env: Readonly<Record<string, string>>;
  /** Stops the server and deletes its data directory. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts one embedded Postgres for a whole test run (a vitest
 * `globalSetup`), with a template database that already holds the durable
 * tables and DBOS's system tables. With its `env` in their environment,
 * `startTestPostgres()` calls in the test files (and in processes they
 * start) each get a fresh database copied from the template, which takes
 * a few milliseconds instead of starting a server, and workers launching on
 * it have no migration to run. Like `startTestPostgres`, the server runs
 * without `fsync`.
 */
export async function startSharedTestPostgres(
  options: { onLog?: (line: string) => void } = {},
): Promise<SharedTestPostgres> {
  const server = await startEmbeddedServer({ maxConnections: 1000, onLog: options.onLog });
  try {
    await server.createDatabase(TEMPLATE_DATABASE);
    const templateUrl = server.urlOf(TEMPLATE_DATABASE);
    const pool = new pg.Pool({ connectionString: templateUrl, max: 1 });
    try {
      await migrateSchema(pool, DEFAULT_SCHEMA);
    } finally {
      await pool.end();
    }
    await DBOS.migrate(templateUrl);
    return { env: { [SHARED_TEST_POSTGRES_ENV]: templateUrl }, stop: server.stop };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
