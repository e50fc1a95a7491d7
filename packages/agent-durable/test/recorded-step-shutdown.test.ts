/**
 * A step whose worker shut DBOS down while the step ran cannot record its
 * outcome: the step fails with a `DurableTurnError` (`worker_state`) saying
 * so, not with an error from inside DBOS. DBOS's pool is the worker's own
 * and still open then, so DBOS would record that failure as the workflow's
 * (the bare workflow below shows it does); the turn workflow's body, run
 * through `endsNothingOnceShuttingDown`, stops there instead, and the
 * workflow stays pending in the database for a running worker to resume.
 */
import { DBOS } from "@dbos-inc/dbos-sdk";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DBOS_SYSTEM_SCHEMA } from "../src/defaults.js";
import { DurableTurnError } from "../src/index.js";
import { runRecordedStep } from "../src/steps/recorded-step.js";
import { StepRecords } from "../src/store/step-records.js";
import { TurnClaim } from "../src/store/turn-claim.js";
import { startTestPostgres, type TestPostgres } from "../src/testing/index.js";
import { endsNothingOnceShuttingDown } from "../src/turn/turn-workflow.js";

let postgres: TestPostgres;
let pool: pg.Pool;
let dbosPool: pg.Pool;
const lifecycle = { shuttingDown: false };
const release: (() => void)[] = [];
const entered: Promise<void>[] = [];
const bodyEntered: (() => void)[] = [];
for (let i = 0; i < 2; i++) entered.push(new Promise<void>((resolve) => bodyEntered.push(resolve)));
const stepFailures = new Map<string, unknown>();

async function slowStep(): Promise<string> {
  const workflowId = DBOS.workflowID!;
  const ctx = {
    ref: { workflowId },
    claim: TurnClaim.current(workflowId),
    stores: { stepRecords: new StepRecords(pool) },
  };
  try {
    return await runRecordedStep(ctx, "slow", async () => {
      const index = workflowId.endsWith("bare") ? 0 : 1;
      bodyEntered[index]!();
      await new Promise<void>((resolve) => (release[index] = resolve));
      return "done";
    });
  } catch (error) {
    stepFailures.set(workflowId, error);
    throw error;
  }
}

const bare = DBOS.registerWorkflow(slowStep, { name: "recorded-step-shutdown-bare" });
const guarded = DBOS.registerWorkflow(() => endsNothingOnceShuttingDown(lifecycle, slowStep), {
  name: "recorded-step-shutdown-guarded",
});

beforeAll(async () => {
  postgres = await startTestPostgres();
  pool = new pg.Pool({ connectionString: postgres.url, max: 2 });
  // As in the worker: DBOS's pool is one of the worker's, closed only after DBOS is shut down.
  dbosPool = new pg.Pool({ connectionString: postgres.url, max: 4 });
  DBOS.setConfig({
    name: "recorded-step-shutdown",
    systemDatabaseUrl: postgres.url,
    systemDatabasePool: dbosPool,
    logLevel: "error",
  });
  await DBOS.launch();
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await dbosPool?.end();
  await postgres?.stop();
}, 30_000);

async function statusOf(workflowId: string): Promise<string> {
  const { rows } = await pool.query(
    `SELECT status FROM "${DBOS_SYSTEM_SCHEMA}".workflow_status WHERE workflow_uuid = $1`,
    [workflowId],
  );
  return rows[0]?.status;
}

it("a step that ends after its worker shut down fails with worker_state; the turn workflow stays pending", async () => {
  await DBOS.startWorkflow(bare, { workflowID: "recorded:bare" })();
  await DBOS.startWorkflow(guarded, { workflowID: "recorded:guarded" })();
  await Promise.all(entered);
  lifecycle.shuttingDown = true;
  await DBOS.shutdown({ deregister: true });
  for (const resolve of release) resolve();
  await expect.poll(() => stepFailures.size, { timeout: 5_000 }).toBe(2);
  for (const failure of stepFailures.values()) {
    expect(DurableTurnError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({
      code: "worker_state",
      message:
        "step slow ended after its worker shut down: its outcome is not recorded, and a running worker resumes the turn",
    });
  }
  // The premise: with its pool open, DBOS records a bare workflow's failure even after it was shut down.
  await expect.poll(() => statusOf("recorded:bare"), { timeout: 5_000 }).toBe("ERROR");
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(await statusOf("recorded:guarded")).toBe("PENDING");
}, 60_000);
