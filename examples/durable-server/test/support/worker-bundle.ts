/*
 * The example's worker bundled once per test run (vitest global setup), so
 * that each worker process the tests start, and start again after a
 * SIGKILL, runs plain `node` instead of compiling the sources with tsx.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleForTests } from "../../../../scripts/testing/bundle-for-tests.js";

const WORKER_SCRIPT = fileURLToPath(new URL("../../src/worker.ts", import.meta.url));
const BUNDLE_ENV = "TURNKIT_EXAMPLE_WORKER_BUNDLE";

/** The `workerCommand` the tests give `startDurableServer`: the bundle when the global setup made one. */
export function testWorkerCommand(): string[] | undefined {
  const bundle = process.env[BUNDLE_ENV];
  return bundle ? [process.execPath, bundle] : undefined;
}

/** Vitest global setup: bundles the worker and removes the bundle after the run. */
export default async function setup(): Promise<() => void> {
  const scratch = mkdtempSync(join(tmpdir(), "turnkit-example-worker-"));
  process.env[BUNDLE_ENV] = await bundleForTests(WORKER_SCRIPT, scratch);
  return () => {
    delete process.env[BUNDLE_ENV];
    rmSync(scratch, { recursive: true, force: true });
  };
}
