/*
 * A test worker: `node --import tsx --conditions=source worker-process.ts`,
 * or its bundle (see worker-bundle.ts). Configured by environment:
 * DATABASE_URL, WORKER_ID, COUNT_FILE, CONCURRENCY, LEASE_MS,
 * APPROVAL_TIMEOUT_MS, QUERY_TIMEOUT_MS, BUILD (scenario | sessions), LOG_LEVEL (DBOS's),
 * APP_VERSION, SCHEMA and QUEUE_NAME (a deployment of its own), and
 * TURNKIT_DURABLE_FAULT (a test-only crash point of the worker). A spare
 * (WORKER_SPARE=1) loads everything, then reads those settings as one JSON
 * line on stdin before it launches.
 * Prints "ready boot=<ms> launch=<ms>" once it takes turns (boot: process
 * start to the worker code loaded; launch: `DurableTurnWorker.launch`);
 * SIGTERM shuts it down cleanly (it prints "shutting down" as it begins, and "shutdown rejected: <error>" if the
 * shutdown gave up on the database), and it exits when its parent goes away
 * (its stdin closes), so a killed test run leaves no worker behind.
 */
import { performance } from "node:perf_hooks";
import { DurableTurnWorker } from "../../src/index.js";
import { scenarioBuildTurn, sessionTrackingBuildTurn } from "./scenario-turns.js";

/** The first line written to stdin, parsed as JSON. */
function settingsFromStdin(): Promise<Record<string, string>> {
  return new Promise((resolve) => {
    let text = "";
    const onData = (chunk: Buffer) => {
      text += String(chunk);
      const end = text.indexOf("\n");
      if (end < 0) return;
      process.stdin.off("data", onData);
      process.stdin.pause();
      resolve(JSON.parse(text.slice(0, end)));
    };
    process.stdin.on("data", onData);
  });
}

const loaded = performance.now();
if (process.env.WORKER_SPARE === "1") Object.assign(process.env, await settingsFromStdin());
const launching = performance.now();
const env = process.env;
const countFile = env.COUNT_FILE ?? "/dev/null";
const worker = await DurableTurnWorker.launch({
  databaseUrl: env.DATABASE_URL!,
  workerId: env.WORKER_ID,
  concurrency: Number(env.CONCURRENCY ?? 4),
  leaseMs: Number(env.LEASE_MS ?? 15_000),
  approvalTimeoutMs: env.APPROVAL_TIMEOUT_MS ? Number(env.APPROVAL_TIMEOUT_MS) : undefined,
  queryTimeoutMs: env.QUERY_TIMEOUT_MS ? Number(env.QUERY_TIMEOUT_MS) : undefined,
  logLevel: env.LOG_LEVEL,
  appVersion: env.APP_VERSION,
  schema: env.SCHEMA,
  queueName: env.QUEUE_NAME,
  buildTurn: env.BUILD === "sessions" ? sessionTrackingBuildTurn(countFile) : scenarioBuildTurn(countFile),
});
process.stdout.write(`ready boot=${Math.round(loaded)} launch=${Math.round(performance.now() - launching)}\n`);
process.on("SIGTERM", () => {
  // Printed as the shutdown begins, for a test that waits for it.
  process.stdout.write("shutting down\n");
  // A shutdown that gave up on the database says so, for a test that checks every shutdown kept its promises.
  void worker
    .shutdown()
    .catch((error: unknown) => process.stdout.write(`shutdown rejected: ${String(error)}\n`))
    .finally(() => process.exit(0));
});
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
