/*
 * The vitest global setup of this package: one embedded Postgres for the
 * whole run, whose template database every test file copies (through
 * `startTestPostgres`). Skipped when `DATABASE_URL` names a server, or when
 * another project's global setup already started a shared server.
 */
import { SHARED_TEST_POSTGRES_ENV, startSharedTestPostgres } from "../../src/testing/index.js";

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.DATABASE_URL || process.env[SHARED_TEST_POSTGRES_ENV]) return undefined;
  const shared = await startSharedTestPostgres();
  Object.assign(process.env, shared.env);
  return async () => {
    delete process.env[SHARED_TEST_POSTGRES_ENV];
    await shared.stop();
  };
}
