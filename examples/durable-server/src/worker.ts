/*
 * One worker process of the example (started by main.ts): runs durable
 * turns from the shared queue. DATABASE_URL, WORKER_ID and LEASE_MS come
 * from the environment. Prints "ready" once it takes turns; exits when
 * main.ts goes away (its stdin closes). Its `release-desk` MCP server (a
 * child process) starts at the first turn that needs it and ends with it.
 */
import { DurableTurnWorker } from "@turnkit/agent-durable";
import { demoTurnBuilder } from "./demo-turn.js";
import type { ReleaseDesk } from "./release-desk.js";

// Loaded and made at the first turn that needs it: the other turns never load the MCP client.
let releaseDesk: Promise<ReleaseDesk> | undefined;
const openReleaseDesk = () => (releaseDesk ??= import("./release-desk.js").then((m) => m.createReleaseDesk()));
const worker = await DurableTurnWorker.launch({
  databaseUrl: process.env.DATABASE_URL!,
  workerId: process.env.WORKER_ID,
  leaseMs: Number(process.env.LEASE_MS ?? 3000),
  buildTurn: demoTurnBuilder(openReleaseDesk),
});
process.stdout.write(`ready ${worker.workerId}\n`);
const stop = () => Promise.allSettled([worker.shutdown(), releaseDesk?.then((desk) => desk.dispose())]);
process.on("SIGTERM", () => void stop().finally(() => process.exit(0)));
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
