/*
 * A worker's lease stays fresh while the worker launches. DBOS recovers the
 * worker's own turns, and the worker takes new ones from the queue, before
 * `launch` returns; a launch slower than the lease (a loaded machine, a
 * busy database) whose heartbeat waited for the launch to end looked like a
 * dead worker: the others queued its turns again under the executions it
 * already ran, which sent their model requests twice and answered their
 * running calls as interrupted. Here the launch is held up by a lock the
 * test keeps on DBOS's workflow table for two leases, and the heartbeat
 * must go on meanwhile.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DurableTurnWorker } from "../src/index.js";
import { startTestPostgres, type TestPostgres } from "../src/testing/index.js";

// Long enough that a loaded machine's pause of the test process (the worker runs in it) stays well within it: with
// 300 ms, a 412 ms pause under four CPU burners failed the test though the worker beat throughout.
const LEASE_MS = 1000;
let postgres: TestPostgres;

beforeAll(async () => {
  postgres = await startTestPostgres();
}, 60_000);

afterAll(async () => {
  await postgres?.stop();
});

describe("a worker that launches slowly", () => {
  it("keeps its lease fresh while it launches", async () => {
    const holder = new pg.Client({ connectionString: postgres.url });
    const watcher = new pg.Client({ connectionString: postgres.url });
    await Promise.all([holder.connect(), watcher.connect()]);
    // Recovering the worker's turns at launch writes DBOS's workflow table: it waits while the lock is held.
    await holder.query("BEGIN");
    await holder.query("LOCK TABLE dbos.workflow_status IN SHARE MODE");
    const beats: number[] = [];
    let launched = false;
    const watch = (async () => {
      while (!launched) {
        const { rows } = await watcher.query(
          "SELECT (extract(epoch FROM heartbeat_at) * 1000)::float8 AS at FROM turnkit_durable.workers WHERE executor_id LIKE 'slow-launch#%'",
        );
        if (rows[0] && beats.at(-1) !== rows[0].at) beats.push(rows[0].at);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const launching = DurableTurnWorker.launch({
      databaseUrl: postgres.url,
      workerId: "slow-launch",
      leaseMs: LEASE_MS,
      buildTurn: () => ({}) as never,
    });
    // Held for two leases once the first heartbeat is there: a heartbeat that waited for the launch leaves a gap that long.
    const deadline = Date.now() + 30_000;
    while (beats.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 2 * LEASE_MS));
    await holder.query("COMMIT");
    const worker = await launching;
    launched = true;
    await watch;
    try {
      const { rows } = await watcher.query("SELECT (extract(epoch FROM now()) * 1000)::float8 AS now");
      const gaps = [...beats.slice(1).map((at, i) => at - beats[i]!), rows[0].now - beats.at(-1)!];
      // Beating every quarter lease: never a gap of a whole lease, which would let another worker take it over.
      expect(Math.max(...gaps), `heartbeat gaps ${gaps.map(Math.round).join(", ")} ms`).toBeLessThan(LEASE_MS);
    } finally {
      await worker.shutdown();
      await Promise.all([holder.end(), watcher.end()]);
    }
  });
});
