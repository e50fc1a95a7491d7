import { fileURLToPath } from "node:url";
import { bundleForTests } from "../../../../scripts/testing/bundle-for-tests.js";

const WORKER_SCRIPT = fileURLToPath(new URL("./worker-process.ts", import.meta.url));

/**
 * Bundles the test worker (`worker-process.ts`, the workspace sources it
 * imports and the registry packages they use) into ES modules in `outDir`,
 * so that each worker process starts with plain `node`: compiling
 * TypeScript through tsx's loader took three times the CPU per start, and
 * loading the registry packages file by file (pi-ai, DBOS, pg, typebox:
 * hundreds of small files) took 0.8 s of CPU per start against 0.2 s for
 * the bundle. Rejects when anything does not bundle, which fails the run.
 */
export function bundleWorker(outDir: string): Promise<string> {
  return bundleForTests(WORKER_SCRIPT, outDir, { registryPackages: "bundled" });
}
