/**
 * Pins what a recorded step relies on in DBOS 5.3 (run in this process, no
 * worker): its record lands in DBOS's step table where `DBOS.runStep`'s
 * would, at the same position among the workflow's steps, so DBOS lists it
 * and a replay (here a fork) returns it, or throws its error, without
 * running the body; inside the body DBOS sees a step; a conditional record
 * is stored only when its condition holds. A DBOS upgrade that
 * changes the table or the numbering fails here.
 */
import { DBOS } from "@dbos-inc/dbos-sdk";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DurableTurnError } from "../src/index.js";
import { runRecordedStep } from "../src/steps/recorded-step.js";
import { StepRecords } from "../src/store/step-records.js";
import { TurnClaim } from "../src/store/turn-claim.js";
import { startTestPostgres, type TestPostgres } from "../src/testing/index.js";

let postgres: TestPostgres;
let pool: pg.Pool;
let bodiesRun = 0;

async function mixedSteps(): Promise<unknown[]> {
  const workflowId = DBOS.workflowID!;
  const ctx = {
    ref: { workflowId },
    claim: TurnClaim.current(workflowId),
    stores: { stepRecords: new StepRecords(pool) },
    lease: { stopped: false },
  };
  const first = await runRecordedStep(ctx, "first", async () => {
    bodiesRun++;
    return { n: 1, text: "one" };
  });
  const second = await DBOS.runStep(async () => "by DBOS", { name: "second" });
  const third = await runRecordedStep(ctx, "third", async () => {
    bodiesRun++;
    return {
      inStep: DBOS.isInStep(),
      stepId: DBOS.stepID,
      nested: await runRecordedStep(ctx, "nested", async () => 7),
    };
  });
  const fourth = await runRecordedStep(ctx, "fourth", async () => {
    bodiesRun++;
    throw new Error("the fourth step failed");
  }).catch((error: Error) => error.message);
  // Records that depend on a condition the storing statement checks: stored as is when it holds, else recomputed.
  const conditional = (holds: boolean) => (result: string) => ({
    value: `${result}, as expected`,
    condition: (first: number) => ({ sql: `$${first}::boolean`, params: [holds] }),
    otherwise: async () => `${result}, recomputed`,
  });
  const fifth = await runRecordedStep(ctx, "fifth", async () => "fifth", conditional(true));
  const sixth = await runRecordedStep(ctx, "sixth", async () => "sixth", conditional(false));
  return [first, second, third, fourth, fifth, sixth];
}

beforeAll(async () => {
  postgres = await startTestPostgres();
  pool = new pg.Pool({ connectionString: postgres.url, max: 4 });
  DBOS.registerWorkflow(mixedSteps, { name: "recorded-step-pin" });
  DBOS.setConfig({ name: "recorded-step-pin", systemDatabaseUrl: postgres.url, logLevel: "error" });
  await DBOS.launch();
}, 60_000);

afterAll(async () => {
  await DBOS.shutdown({ deregister: true });
  await pool?.end();
  await postgres?.stop();
}, 30_000);

const expected = [
  { n: 1, text: "one" },
  "by DBOS",
  { inStep: true, stepId: 2, nested: 7 },
  "the fourth step failed",
  "fifth, as expected",
  "sixth, recomputed",
];

describe("a recorded step", () => {
  it("is recorded where DBOS.runStep records, and a replay returns its record without running it", async () => {
    const handle = await DBOS.startWorkflow(mixedSteps, { workflowID: "recorded:pin" })();
    expect(await handle.getResult()).toEqual(expected);
    expect(bodiesRun).toBe(3);
    const steps = (await DBOS.listWorkflowSteps(handle.workflowID)) ?? [];
    expect(steps.map((step) => [step.functionID, step.name])).toEqual([
      [0, "first"],
      [1, "second"],
      [2, "third"],
      [3, "fourth"],
      [4, "fifth"],
      [5, "sixth"],
    ]);
    expect(steps[0]!.output).toEqual({ n: 1, text: "one" });
    expect((steps[3]!.error as Error).message).toBe("the fourth step failed");

    // A fork keeps the six records: its execution runs none of the bodies and returns the same.
    const fork = await DBOS.forkWorkflow(handle.workflowID, 6, { newWorkflowID: "recorded:pin-fork" });
    expect(await fork.getResult()).toEqual(expected);
    expect(bodiesRun).toBe(3);
  }, 60_000);

  it("stores nothing for an execution whose claim no longer holds", async () => {
    const records = new StepRecords(pool);
    const claim = new TurnClaim("recorded:pin", "not-the-owner");
    const step = { functionId: 9, functionName: "late", output: null, error: null, serialization: null };
    await expect(
      records.record(claim, { ...step, startedAtMs: 0, completedAtMs: 0, applicationName: null }),
    ).rejects.toSatisfy((e: unknown) => DurableTurnError.isInstance(e) && e.code === "superseded");
    expect((await records.load("recorded:pin")).has(9)).toBe(false);
  });
});
