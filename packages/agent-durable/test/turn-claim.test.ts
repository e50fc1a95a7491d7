/**
 * Pins what the turn claim relies on in DBOS 5.3 (run in this process, no
 * worker): the token of the running execution is the workflow row's
 * `owner_xid`; `resumeWorkflows`, which a worker uses to take over a dead
 * worker's turns, revokes it; and DBOS itself then refuses to record a step
 * of the old execution. A DBOS upgrade that changes any of this fails here
 * before it can let a stalled worker write for a turn another one runs.
 */
import { DBOS, DBOSWorkflowConflictError } from "@dbos-inc/dbos-sdk";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DurableTurnError } from "../src/index.js";
import { EventLog } from "../src/store/event-log.js";
import { StepRecords } from "../src/store/step-records.js";
import { TurnClaim, assertClaimHolds, inClaimedTransaction } from "../src/store/turn-claim.js";
import { TurnTable } from "../src/store/turn-table.js";
import { startTestPostgres, type TestPostgres } from "../src/testing/index.js";
import { claimForTest } from "./support/test-claim.js";

let postgres: TestPostgres;
let pool: pg.Pool;

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}
function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const claimed = deferred<TurnClaim>();
const gate = deferred<void>();
const stepOutcome = deferred<unknown>();
let bodyRan = false;

async function pinnedWorkflow(): Promise<string> {
  claimed.resolve(TurnClaim.current(DBOS.workflowID!));
  await gate.promise;
  try {
    await DBOS.runStep(
      async () => {
        bodyRan = true;
        return "after";
      },
      { name: "after-takeover" },
    );
    stepOutcome.resolve("recorded");
  } catch (error) {
    stepOutcome.resolve(error);
    throw error;
  }
  return "done";
}

beforeAll(async () => {
  postgres = await startTestPostgres();
  pool = new pg.Pool({ connectionString: postgres.url, max: 4 });
  DBOS.registerWorkflow(pinnedWorkflow, { name: "claim-pin" });
  DBOS.setConfig({
    name: "claim-pin",
    systemDatabaseUrl: postgres.url,
    logLevel: "error",
    // Nobody dequeues the turn once it is queued again: the old execution is the only one.
    listenQueues: ["claim-pin-listened"],
  });
  await DBOS.launch();
  await DBOS.registerQueue("claim-pin-parked");
}, 60_000);

afterAll(async () => {
  gate.resolve();
  await DBOS.shutdown({ deregister: true });
  await pool?.end();
  await postgres?.stop();
}, 30_000);

describe("the turn claim and DBOS's ownership token", () => {
  it("holds while the execution owns the workflow; a takeover revokes it and DBOS records nothing more of the old execution", async () => {
    const handle = await DBOS.startWorkflow(pinnedWorkflow, { workflowID: "turn:pin:t1" })();
    const claim = await claimed.promise;
    const owner = await pool.query("SELECT owner_xid FROM dbos.workflow_status WHERE workflow_uuid = $1", [
      handle.workflowID,
    ]);
    expect(owner.rows[0].owner_xid).toBe(claim.token);
    await assertClaimHolds(pool, claim);
    expect(await inClaimedTransaction(pool, claim, async () => "written")).toBe("written");

    // What a worker does when it takes over a dead worker's lease.
    await DBOS.resumeWorkflows([handle.workflowID], { queueName: "claim-pin-parked" });

    const superseded = (e: unknown) => DurableTurnError.isInstance(e) && e.code === "superseded";
    let wrote = false;
    await expect(
      inClaimedTransaction(pool, claim, async () => {
        wrote = true;
      }),
    ).rejects.toSatisfy(superseded);
    expect(wrote).toBe(false);
    expect(claim.revoked.aborted).toBe(true);
    await expect(assertClaimHolds(pool, claim)).rejects.toSatisfy(superseded);
    const event = {
      type: "debug.trace",
      seq: 1,
      eventId: "turn:pin:t1#1",
      payload: { phase: "x", level: "info", message: "late" },
    };
    await expect(new EventLog(pool, "turnkit_durable").append(claim, [event as never])).rejects.toSatisfy(superseded);
    const events = await pool.query("SELECT count(*)::int AS n FROM turnkit_durable.events WHERE turn_key = $1", [
      handle.workflowID,
    ]);
    expect(events.rows[0].n).toBe(0);

    // The old execution goes on: DBOS runs its step body but refuses to record it.
    gate.resolve();
    expect(await stepOutcome.promise).toBeInstanceOf(DBOSWorkflowConflictError);
    expect(bodyRan).toBe(true);
    const steps = (await DBOS.listWorkflowSteps(handle.workflowID)) ?? [];
    expect(steps.map((step) => step.name)).not.toContain("after-takeover");
    expect((await DBOS.getWorkflowStatus(handle.workflowID))?.status).toBe("ENQUEUED");
  }, 60_000);
});

describe("the turn claim and the step records its execution acted on", () => {
  const superseded = (e: unknown) => DurableTurnError.isInstance(e) && e.code === "superseded";
  const step = (functionId: number) => ({
    functionId,
    functionName: `step-${functionId}`,
    output: null,
    error: null,
    serialization: null,
    startedAtMs: 0,
    completedAtMs: 0,
    applicationName: null,
  });

  it("holds no more once a record the execution stored is gone, as after a crash of the database lost it", async () => {
    const claim = await claimForTest(pool, "turn:records:lost");
    const records = new StepRecords(pool);
    await records.record(claim, step(1));
    await records.record(claim, step(2));
    await assertClaimHolds(pool, claim);
    // What a crash of the server does to a commit that did not wait for the disk.
    await pool.query("DELETE FROM dbos.operation_outputs WHERE workflow_uuid = $1 AND function_id = 2", [
      claim.turnKey,
    ]);
    const turnTable = new TurnTable(pool, "turnkit_durable");
    await expect(turnTable.startToolAttempt(claim, "2:call")).rejects.toSatisfy(superseded);
    const attempts = await pool.query(
      "SELECT count(*)::int AS n FROM turnkit_durable.tool_attempts WHERE turn_key = $1",
      [claim.turnKey],
    );
    expect(attempts.rows[0].n).toBe(0);
    expect(claim.revoked.aborted).toBe(true);
  });

  it("checks no record that a commit which waited for the disk covers", async () => {
    const claim = await claimForTest(pool, "turn:records:covered");
    const records = new StepRecords(pool);
    await records.record(claim, step(1));
    // A commit that waits for the disk (the tool call's attempt) after record 1: it is on disk, and no longer checked.
    await new TurnTable(pool, "turnkit_durable").startToolAttempt(claim, "1:call");
    await pool.query("DELETE FROM dbos.operation_outputs WHERE workflow_uuid = $1 AND function_id = 1", [
      claim.turnKey,
    ]);
    await assertClaimHolds(pool, claim);
    await records.record(claim, step(2));
  });
});
