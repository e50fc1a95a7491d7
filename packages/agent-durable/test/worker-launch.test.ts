/**
 * Launching workers: any number may start at once, on an empty database
 * (the first deployment: they create the tables one after the other) or on
 * one already set up; and how long a launch takes is measured and bounded,
 * so a start-up regression shows here.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DurableTurnClient } from "../src/index.js";
import { startTestPostgres, type TestPostgres } from "../src/testing/index.js";
import { WorkerCluster, type WorkerStart } from "./support/worker-cluster.js";

/** Most a launch on a database already set up may take (1.2-2.5 s on a 2-core machine at a load average of ~20). */
const LAUNCH_BUDGET_MS = 8_000;

let postgres: TestPostgres | undefined;
let cluster: WorkerCluster | undefined;
let client: DurableTurnClient | undefined;
const scratch = mkdtempSync(join(tmpdir(), "turnkit-launch-"));

afterAll(async () => {
  await cluster?.stopWorkers();
  await client?.close();
  await postgres?.stop();
  rmSync(scratch, { recursive: true, force: true });
}, 60_000);

function describeStarts(starts: WorkerStart[]): string {
  return starts.map((s) => `${s.workerId} boot ${s.bootMs} ms, launch ${s.launchMs} ms`).join("; ");
}

describe("launching workers", () => {
  it("four workers launched at once on an empty database all start and run turns; a later launch is quick", async () => {
    postgres = await startTestPostgres({ empty: true });
    cluster = new WorkerCluster(postgres.url, join(scratch, "counts.jsonl"));
    const ids = ["l1", "l2", "l3", "l4"];
    await Promise.all(ids.map((id) => cluster!.start(id)));
    console.log(`launched together on an empty database: ${describeStarts(cluster.starts)}`);
    expect(cluster.starts.map((s) => s.workerId).sort()).toEqual(ids);

    client = await DurableTurnClient.connect({ databaseUrl: postgres.url });
    const turns = await Promise.all(
      ids.map((_, i) => client!.start({ sessionId: `launch-${i}`, turnId: "t1", userMessage: { text: "hi" } })),
    );
    for (const turn of turns) expect(await client.outcome(turn)).toMatchObject({ kind: "completed" });

    await cluster.start("l5");
    const later = cluster.starts.at(-1)!;
    console.log(`launched on a database already set up: ${describeStarts([later])}`);
    expect(later.launchMs).toBeLessThan(LAUNCH_BUDGET_MS);
  }, 120_000);
});
