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
const MCP_SERVER_SCRIPT = fileURLToPath(new URL("../../src/release-desk-server.ts", import.meta.url));
const BUNDLE_ENV = "TURNKIT_EXAMPLE_WORKER_BUNDLE";
const MCP_SERVER_BUNDLE_ENV = "TURNKIT_EXAMPLE_MCP_SERVER_BUNDLE";

/** The `workerCommand` the tests give `startDurableServer`: the bundle when the global setup made one. */
export function testWorkerCommand(): string[] | undefined {
  const bundle = process.env[BUNDLE_ENV];
  return bundle ? [process.execPath, bundle] : undefined;
}

/** The workers' environment for the tests: their MCP server started from its bundle with plain node. */
export function testWorkerEnv(): Record<string, string> {
  const bundle = process.env[MCP_SERVER_BUNDLE_ENV];
  return bundle ? { RELEASE_DESK_COMMAND: JSON.stringify([process.execPath, bundle]) } : {};
}

/** Vitest global setup: bundles the worker and its MCP server, and removes the bundles after the run. */
export default async function setup(): Promise<() => void> {
  const scratch = mkdtempSync(join(tmpdir(), "turnkit-example-worker-"));
  const [worker, mcpServer] = await Promise.all([
    bundleForTests(WORKER_SCRIPT, join(scratch, "worker")),
    bundleForTests(MCP_SERVER_SCRIPT, join(scratch, "mcp")),
  ]);
  process.env[BUNDLE_ENV] = worker;
  process.env[MCP_SERVER_BUNDLE_ENV] = mcpServer;
  return () => {
    delete process.env[BUNDLE_ENV];
    delete process.env[MCP_SERVER_BUNDLE_ENV];
    rmSync(scratch, { recursive: true, force: true });
  };
}
