/**
 * A step whose worker shut DBOS down while the step ran cannot record its
 * outcome: the step fails with a `DurableTurnError` (`worker_state`) saying
 * so, not with an error from inside DBOS, and the turn's workflow stays
 * pending in the database for a running worker to resume.
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

let postgres: TestPostgres;
let pool: pg.Pool;
let releaseBody!: () => void;
let bodyEntered!: () => void;
const entered = new Promise<void>((resolve) => (bodyEntered = resolve));
let stepFailure: unknown;

async function slowStep(): Promise<string> {
  const workflowId = DBOS.workflowID!;
  const ctx = {
    ref: { workflowId },
    claim: TurnClaim.current(workflowId),
    stores: { stepRecords: new StepRecords(pool) },
  };
  try {
    return await runRecordedStep(ctx, "slow", async () => {
      bodyEntered();
      await new Promise<void>((resolve) => (releaseBody = resolve));
      return "done";
    });
  } catch (error) {
    stepFailure = error;
    throw error;
  }
}

beforeAll(async () => {
  postgres = await startTestPostgres();
  pool = new pg.Pool({ connectionString: postgres.url, max: 2 });
  DBOS.registerWorkflow(slowStep, { name: "recorded-step-shutdown" });
  DBOS.setConfig({ name: "recorded-step-shutdown", systemDatabaseUrl: postgres.url, logLevel: "error" });
  await DBOS.launch();
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await postgres?.stop();
}, 30_000);

it("a step that ends after its worker shut down fails with worker_state; its workflow stays pending", async () => {
  await DBOS.startWorkflow(slowStep, { workflowID: "recorded:shutdown" })();
  await entered;
  await DBOS.shutdown({ deregister: true });
  releaseBody();
  await expect.poll(() => stepFailure, { timeout: 5_000 }).toBeDefined();
  expect(DurableTurnError.isInstance(stepFailure)).toBe(true);
  expect(stepFailure).toMatchObject({
    code: "worker_state",
    message:
      "step slow ended after its worker shut down: its outcome is not recorded, and a running worker resumes the turn",
  });
  const { rows } = await pool.query(
    `SELECT status FROM "${DBOS_SYSTEM_SCHEMA}".workflow_status WHERE workflow_uuid = $1`,
    ["recorded:shutdown"],
  );
  expect(rows).toEqual([{ status: "PENDING" }]);
}, 60_000);
