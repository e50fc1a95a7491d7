/**
 * A step whose worker shut DBOS down while the step ran cannot record its
 * outcome: it fails with a `DurableTurnError` (`worker_state`) saying so,
 * not with an error from inside DBOS. DBOS's pool is the worker's own and
 * still open then, so DBOS would record that failure as the workflow's (the
 * bare workflow below, whose step knows of no shutdown, shows it does).
 *
 * A turn's step knows: once its worker began to shut down (its lease
 * stopped), a step that fails records nothing and never settles, so the
 * execution stops there, as if its process had died, and the workflow
 * stays pending in the database for a running worker to resume; also a
 * step whose body throws while DBOS still runs and the claim still holds.
 * Before, the failure reached the step's caller, which made it the turn's
 * (a model request that failed, a tool call that threw) and logged it
 * while the claim still held, when the hand-back had left the turn's row
 * (locked by a write then): the turn ended `failed` because its worker
 * shut down. A failure of the turn's body outside any step (a log write
 * once the pools closed) stops the same way: the turn workflow runs its
 * body through `endsNothingOnceShuttingDown`.
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
/** The lease of a turn's steps: stopped once the worker shuts down. */
const workerLease = { stopped: false };
/** Each workflow's step waits in its body until the test lets it end, and ends as its workflow's id says. */
const waiting = new Map<string, { entered: Promise<void>; enter: () => void; end?: () => void }>();
const stepEnded = new Map<string, { failure?: unknown }>();

function gate(workflowId: string) {
  let gate = waiting.get(workflowId);
  if (!gate) {
    let enter = () => {};
    const entered = new Promise<void>((resolve) => (enter = resolve));
    gate = { entered, enter };
    waiting.set(workflowId, gate);
  }
  return gate;
}

async function slowStep(lease: { readonly stopped: boolean }): Promise<string> {
  const workflowId = DBOS.workflowID!;
  const ctx = {
    ref: { workflowId },
    claim: TurnClaim.current(workflowId),
    stores: { stepRecords: new StepRecords(pool) },
    lease,
  };
  try {
    const result = await runRecordedStep(ctx, "slow", async () => {
      const { enter } = gate(workflowId);
      await new Promise<void>((resolve) => {
        gate(workflowId).end = resolve;
        enter();
      });
      if (workflowId.endsWith("throws")) throw new Error("the tool failed");
      return "done";
    });
    stepEnded.set(workflowId, {});
    return result;
  } catch (error) {
    stepEnded.set(workflowId, { failure: error });
    throw error;
  }
}

/** A turn's body failing outside any step once it may go on (as a log write does once the worker's pools closed). */
async function failsOutsideSteps(): Promise<string> {
  const workflowId = DBOS.workflowID!;
  const { enter } = gate(workflowId);
  await new Promise<void>((resolve) => {
    gate(workflowId).end = resolve;
    enter();
  });
  throw new Error("the log write failed: the pool was closed");
}

const bare = DBOS.registerWorkflow(() => slowStep({ stopped: false }), { name: "recorded-step-shutdown-bare" });
const guarded = DBOS.registerWorkflow(() => endsNothingOnceShuttingDown(workerLease, () => slowStep(workerLease)), {
  name: "recorded-step-shutdown-guarded",
});

const guardedOutsideSteps = DBOS.registerWorkflow(() => endsNothingOnceShuttingDown(workerLease, failsOutsideSteps), {
  name: "recorded-step-shutdown-outside-steps",
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

async function stepRecordsOf(workflowId: string): Promise<number> {
  const { rows } = await pool.query(
    `SELECT 1 FROM "${DBOS_SYSTEM_SCHEMA}".operation_outputs WHERE workflow_uuid = $1`,
    [workflowId],
  );
  return rows.length;
}

it("a step that fails once its worker began to shut down records nothing and never settles; the turn workflow stays pending", async () => {
  const ids = ["recorded:bare", "recorded:guarded", "recorded:guarded-throws", "recorded:outside-steps"];
  await DBOS.startWorkflow(bare, { workflowID: ids[0] })();
  await DBOS.startWorkflow(guarded, { workflowID: ids[1] })();
  await DBOS.startWorkflow(guarded, { workflowID: ids[2] })();
  await DBOS.startWorkflow(guardedOutsideSteps, { workflowID: ids[3] })();
  await Promise.all(ids.map((id) => gate(id).entered));
  workerLease.stopped = true;
  // While DBOS still runs and the claim holds: a body that throws.
  gate("recorded:guarded-throws").end!();
  await DBOS.shutdown({ deregister: true });
  // After DBOS stopped: steps whose outcome can no longer be recorded.
  gate("recorded:bare").end!();
  gate("recorded:guarded").end!();
  // A failure of the turn's body outside any step: the turn workflow ends nothing either.
  gate("recorded:outside-steps").end!();
  await expect.poll(() => stepEnded.has("recorded:bare"), { timeout: 5_000 }).toBe(true);
  const failure = stepEnded.get("recorded:bare")!.failure;
  expect(DurableTurnError.isInstance(failure)).toBe(true);
  expect(failure).toMatchObject({
    code: "worker_state",
    message:
      "step slow ended after its worker shut down: its outcome is not recorded, and a running worker resumes the turn",
  });
  // The premise: with its pool open, DBOS records a bare workflow's failure even after it was shut down.
  await expect.poll(() => statusOf("recorded:bare"), { timeout: 5_000 }).toBe("ERROR");
  await new Promise((resolve) => setTimeout(resolve, 200));
  for (const id of ["recorded:guarded", "recorded:guarded-throws"]) {
    expect(stepEnded.has(id), id).toBe(false);
    expect(await stepRecordsOf(id), id).toBe(0);
    expect(await statusOf(id), id).toBe("PENDING");
  }
  expect(await statusOf("recorded:outside-steps")).toBe("PENDING");
}, 60_000);
