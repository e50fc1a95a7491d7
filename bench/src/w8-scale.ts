import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DurableTurnClient } from "@turnkit/agent-durable";
import { startTestPostgres } from "@turnkit/agent-durable/testing";
import { isTerminalEvent } from "@turnkit/protocol";
import pg from "pg";

/*
 * W8: many durable turns at once over several worker processes on one
 * Postgres (embedded, fsync on). Each turn is a few steps: a model request
 * with a delay as its latency answering with one tool call that takes a
 * while, then an answer. Two runs: a calm one (turns per second, step times,
 * connections, memory per worker) and one with random SIGKILLs of workers,
 * each restarted with the same worker id at once (every turn ends, every log
 * is 1..n with one ending, no finished tool call runs again, and how long
 * the turns a kill interrupted took to log their next event).
 */

const WORKER_SCRIPT = fileURLToPath(new URL("./w8-worker.ts", import.meta.url));
const BENCH_DIR = fileURLToPath(new URL("..", import.meta.url));

/** W8's sizes; the defaults are the issue's (1,000 turns, 4 workers, 50 kills). */
export interface W8Options {
  turns?: number;
  workers?: number;
  kills?: number;
  steps?: number;
}

interface Worker {
  id: string;
  child: ChildProcess;
  ready: Promise<number>;
  peakRss: number;
}

function spawnWorker(id: string, settings: Record<string, string>, peaks: Map<string, number>): Worker {
  // The same package entries as this process (the builds, or the sources under `bench:source`).
  const conditions = process.execArgv.filter((arg) => arg.startsWith("--conditions"));
  const child = spawn(process.execPath, [...conditions, "--import", "tsx", WORKER_SCRIPT], {
    cwd: BENCH_DIR,
    env: { ...process.env, ...settings, WORKER_ID: id },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const worker: Worker = { id, child, ready: Promise.resolve(0), peakRss: 0 };
  worker.ready = new Promise((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      for (const line of String(chunk).split("\n")) {
        const ready = /^ready (\d+)/.exec(line);
        if (ready) resolve(Number(ready[1]));
        const rss = /^rss (\d+)/.exec(line);
        if (rss) peaks.set(id, Math.max(peaks.get(id) ?? 0, Number(rss[1])));
      }
    });
    child.stderr!.on("data", () => {});
    child.once("exit", (code, signal) =>
      reject(new Error(`worker ${id} exited (${code ?? signal}) before it was ready`)),
    );
  });
  worker.ready.catch(() => {});
  return worker;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function waitAllFinished(db: pg.Client, prefix: string, total: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.query(
      "SELECT count(*)::int AS n FROM turnkit_durable.turns WHERE session_id LIKE $1 AND outcome IS NOT NULL",
      [`${prefix}%`],
    );
    if (rows[0].n >= total) return;
    if (Date.now() > deadline) throw new Error(`W8: only ${rows[0].n} of ${total} turns ended within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Step durations and the gaps between a turn's steps, from DBOS's own step records, in ms. */
async function stepTimes(db: pg.Client, prefix: string): Promise<{ steps: number[]; gaps: number[] }> {
  const { rows } = await db.query(
    `SELECT o.workflow_uuid, o.started_at_epoch_ms::float8 AS s, o.completed_at_epoch_ms::float8 AS c
     FROM dbos.operation_outputs o
     WHERE o.workflow_uuid LIKE $1 AND (o.function_name = 'turnkit.model-request' OR o.function_name LIKE 'turnkit.tool-call:%')
     ORDER BY o.workflow_uuid, o.function_id`,
    [`turn:${prefix}%`],
  );
  const steps: number[] = [];
  const gaps: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    steps.push(rows[i].c - rows[i].s);
    if (i > 0 && rows[i - 1].workflow_uuid === rows[i].workflow_uuid) gaps.push(rows[i].s - rows[i - 1].c);
  }
  return { steps, gaps };
}

/** Every turn's log is 1..n with one terminal status, last; returns the number of logs checked. */
async function checkLogs(client: DurableTurnClient, prefix: string, total: number): Promise<number> {
  for (let i = 0; i < total; i++) {
    const events = await client.readEvents({ sessionId: `${prefix}${i}`, turnId: "t" }, { limit: 100_000 });
    const gap = events.findIndex((event, index) => event.seq !== index + 1);
    const endings = events.filter(isTerminalEvent).length;
    if (gap >= 0 || endings !== 1 || !isTerminalEvent(events[events.length - 1]!))
      throw new Error(`W8: the log of ${prefix}${i} is broken (gap at ${gap}, ${endings} endings)`);
  }
  return total;
}

/** Tool calls started more than once (a finished one repeated, or an interrupted one run again). */
function repeatedToolCalls(countFile: string): string[] {
  const starts = new Map<string, number>();
  for (const line of readFileSync(countFile, "utf8").split("\n")) {
    const [kind, key] = line.split(" ");
    if (kind === "start" && key) starts.set(key, (starts.get(key) ?? 0) + 1);
  }
  return [...starts].filter(([, n]) => n > 1).map(([key]) => key);
}

/** Runs W8 and prints its figures. Starts and stops its own Postgres and worker processes. */
export async function runW8(options: W8Options = {}): Promise<void> {
  const total = options.turns ?? 1_000;
  const workerCount = options.workers ?? 4;
  const kills = options.kills ?? 50;
  const steps = options.steps ?? 3;
  const started = performance.now();
  const postgres = await startTestPostgres({ crashSafe: true });
  const scratch = mkdtempSync(join(tmpdir(), "turnkit-w8-"));
  const countFile = join(scratch, "tools.log");
  const peaks = new Map<string, number>();
  const settings = { DATABASE_URL: postgres.url, COUNT_FILE: countFile, CONCURRENCY: "64", LEASE_MS: "4000" };
  const workers = new Map<string, Worker>();
  const db = new pg.Client({ connectionString: postgres.url });
  let client: DurableTurnClient | undefined;
  let maxConnections = 0;
  const sampler = setInterval(() => {
    void db
      .query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend'")
      .then(({ rows }) => (maxConnections = Math.max(maxConnections, rows[0].n)))
      .catch(() => {});
  }, 500);
  try {
    await db.connect();
    // The first worker sets the tables up; the others launch on a database that has them.
    const first = spawnWorker("w8-1", settings, peaks);
    workers.set(first.id, first);
    await first.ready;
    for (let i = 2; i <= workerCount; i++) workers.set(`w8-${i}`, spawnWorker(`w8-${i}`, settings, peaks));
    await Promise.all([...workers.values()].map((w) => w.ready));
    client = await DurableTurnClient.connect({ databaseUrl: postgres.url });
    const startAll = (prefix: string) =>
      Promise.all(
        Array.from({ length: total }, (_, i) =>
          client!.start({ sessionId: `${prefix}${i}`, turnId: "t", userMessage: { text: "go" }, metadata: { steps } }),
        ),
      );

    // The calm run.
    const calmStart = performance.now();
    await startAll("calm-");
    await waitAllFinished(db, "calm-", total, 600_000);
    const calmMs = performance.now() - calmStart;
    const calm = await stepTimes(db, "calm-");
    await checkLogs(client, "calm-", total);
    const calmPeaks = [...peaks.values()];

    // The run with kills: a random worker is killed every `killEveryMs` and started again at once with its id.
    const killStart = performance.now();
    await startAll("kill-");
    const recoveries: number[] = [];
    const restarts: number[] = [];
    let killed = 0;
    const killEveryMs = Math.max(100, Math.round(calmMs / Math.max(1, kills)));
    while (killed < kills) {
      await new Promise((resolve) => setTimeout(resolve, killEveryMs * (0.5 + Math.random())));
      const ids = [...workers.keys()];
      const id = ids[Math.floor(Math.random() * ids.length)]!;
      const { rows: running } = await db.query(
        `SELECT w.workflow_uuid, (SELECT coalesce(max(seq), 0) FROM turnkit_durable.events e WHERE e.turn_key = w.workflow_uuid) AS seq
         FROM dbos.workflow_status w WHERE w.executor_id = $1 AND w.status = 'PENDING'`,
        [id],
      );
      const victim = workers.get(id)!;
      const gone = new Promise((resolve) => victim.child.once("exit", resolve));
      victim.child.kill("SIGKILL");
      await gone;
      killed++;
      const respawned = spawnWorker(id, settings, peaks);
      workers.set(id, respawned);
      const killedAt = performance.now();
      void respawned.ready.then((ms) => restarts.push(ms)).catch(() => {});
      // How long until a turn the kill interrupted logs its next event.
      if (running.length > 0) void watchRecovery(db, running, killedAt, recoveries);
    }
    await Promise.all([...workers.values()].map((w) => w.ready.catch(() => 0)));
    await waitAllFinished(db, "kill-", total, 900_000);
    const killMs = performance.now() - killStart;
    const logsChecked = await checkLogs(client, "kill-", total);
    const repeated = repeatedToolCalls(countFile);
    if (repeated.length > 0)
      throw new Error(`W8: tool calls started more than once: ${repeated.slice(0, 5).join(", ")}`);

    const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
    console.log(
      `\nW8: ${total} durable turns of ${steps} steps over ${workerCount} worker processes (concurrency 64 each), Postgres fsync on (${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
    console.log(`  calm run                  ${(total / (calmMs / 1000)).toFixed(1)} turns/s (${fmt(calmMs)})`);
    console.log(
      `  step time (DBOS records)  p50 ${fmt(percentile(calm.steps, 50))}  p99 ${fmt(percentile(calm.steps, 99))}   gap between steps p50 ${fmt(percentile(calm.gaps, 50))}  p99 ${fmt(percentile(calm.gaps, 99))}`,
    );
    console.log(`  Postgres connections      at most ${maxConnections} (client backends, sampled every 500 ms)`);
    console.log(`  peak memory per worker    ${calmPeaks.map(mb).join(", ")} (resident, calm run)`);
    console.log(
      `  with ${killed} SIGKILLs       ${(total / (killMs / 1000)).toFixed(1)} turns/s; all ${logsChecked} turns ended, every log 1..n with one ending, no tool call started twice`,
    );
    console.log(
      `  recovery                  worker restart to ready p50 ${fmt(percentile(restarts, 50))} max ${fmt(Math.max(...restarts))}; kill to an interrupted turn's next event p50 ${fmt(percentile(recoveries, 50))} max ${fmt(Math.max(...recoveries))} (${recoveries.length} kills that interrupted turns)`,
    );
  } finally {
    clearInterval(sampler);
    for (const worker of workers.values()) worker.child.kill("SIGKILL");
    await client?.close();
    await db.end().catch(() => {});
    await postgres.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function watchRecovery(
  db: pg.Client,
  running: { workflow_uuid: string; seq: number }[],
  killedAt: number,
  recoveries: number[],
): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const { rows } = await db.query(
      `SELECT 1 FROM unnest($1::text[], $2::int[]) AS r(k, s)
       WHERE EXISTS (SELECT 1 FROM turnkit_durable.events e WHERE e.turn_key = r.k AND e.seq > r.s) LIMIT 1`,
      [running.map((r) => r.workflow_uuid), running.map((r) => Number(r.seq))],
    );
    if (rows.length > 0) {
      recoveries.push(performance.now() - killedAt);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
