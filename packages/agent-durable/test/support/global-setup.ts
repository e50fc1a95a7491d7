/*
 * The vitest global setup of this package:
 *
 * - one embedded Postgres for the whole run, whose template database every
 *   test file copies (through `startTestPostgres`); skipped when
 *   `DATABASE_URL` names a server, or when another project's global setup
 *   already started a shared server;
 * - the test worker bundled once (see worker-bundle.ts), which every
 *   `WorkerCluster` of the run starts with plain `node`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SHARED_TEST_POSTGRES_ENV, startSharedTestPostgres } from "../../src/testing/index.js";
import { bundleWorker } from "./worker-bundle.js";
import { WORKER_BUNDLE_ENV } from "./worker-cluster.js";

export default async function setup(): Promise<() => Promise<void>> {
  const scratch = mkdtempSync(join(tmpdir(), "turnkit-durable-run-"));
  const [shared, bundle] = await Promise.all([
    process.env.DATABASE_URL || process.env[SHARED_TEST_POSTGRES_ENV] ? undefined : startSharedTestPostgres(),
    bundleWorker(scratch),
  ]);
  if (shared) Object.assign(process.env, shared.env);
  process.env[WORKER_BUNDLE_ENV] = bundle;
  return async () => {
    delete process.env[WORKER_BUNDLE_ENV];
    if (shared) {
      delete process.env[SHARED_TEST_POSTGRES_ENV];
      await shared.stop();
    }
    rmSync(scratch, { recursive: true, force: true });
  };
}
