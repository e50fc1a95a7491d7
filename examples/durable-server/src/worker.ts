/*
 * One worker process of the example (started by main.ts): runs durable
 * turns from the shared queue. DATABASE_URL, WORKER_ID and LEASE_MS come
 * from the environment. Prints "ready" once it takes turns; exits when
 * main.ts goes away (its stdin closes).
 */
import { DurableTurnWorker } from "@turnkit/agent-durable";
import { buildDemoTurn } from "./demo-turn.js";

const worker = await DurableTurnWorker.launch({
  databaseUrl: process.env.DATABASE_URL!,
  workerId: process.env.WORKER_ID,
  leaseMs: Number(process.env.LEASE_MS ?? 3000),
  buildTurn: buildDemoTurn,
});
process.stdout.write(`ready ${worker.workerId}\n`);
process.on("SIGTERM", () => void worker.shutdown().finally(() => process.exit(0)));
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
