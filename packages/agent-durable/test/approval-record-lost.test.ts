/**
 * An approval wait is a DBOS `recv`, a step DBOS records itself (its row
 * in `operation_outputs`, committed without waiting for the disk), not one
 * of the turn's own step records. A crash of Postgres that lost that row
 * (here: the wait timed out, and its row is deleted as the crash loses it)
 * while the execution that waited still runs must stop that execution
 * before it acts on what the database no longer holds, as for a lost step
 * record of its own: the wait is open again in the database, and the
 * answer given since is the one the turn takes.
 *
 * Before, the execution's claim held (only the turn's own records were
 * checked): it logged the wait as timed out, blocked the call and sent its
 * next request, while a replay would wait again and take the answer given
 * since, so the call ran though the log said it was blocked, or the turn
 * failed on a log that no longer matched.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { useDurableFixture } from "./support/durable-fixture.js";
import { assertLogInvariants } from "./support/log-assertions.js";
import { connectAdmin } from "./support/admin-client.js";
import { waitFor } from "./support/worker-cluster.js";

const fixture = useDurableFixture();

/** Whether process `pid` is stopped (`SIGSTOP`): its state in /proc is `T`. */
function isStopped(pid: number): boolean {
  return /^\d+ \(.*\) T/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
}

describe("an approval wait whose record a crash of the database lost", () => {
  it("the execution that goes on acts on nothing of it; the turn takes the answer given since", async () => {
    // The worker stops itself right after its approval wait ended (the first time only), before acting on it.
    await fixture.cluster.start("w", { TURNKIT_DURABLE_FAULT: "approval-received" });
    const turn = await fixture.startWaitingForApproval("recv-lost", { approvalTimeoutMs: 500 });
    const [asked] = await fixture.eventsOfType(turn, "action.required");
    if (asked?.type !== "action.required") throw new Error("no approval request");
    const worker = fixture.cluster.detach("w");
    await waitFor("the wait timed out and the worker stopped", () => isStopped(worker.pid!));

    const admin = await connectAdmin(fixture.postgres.url);
    try {
      // What a crash of the server does to the wait's commit, made without waiting for the disk: its row is gone.
      const lost = await admin.query(
        "DELETE FROM dbos.operation_outputs WHERE workflow_uuid = $1 AND function_name = 'DBOS.recv' RETURNING output",
        [turn.workflowId],
      );
      expect(lost.rows).toHaveLength(1);
    } finally {
      await admin.end();
    }
    // A person answers after the deadline: the database holds the wait as still open, and now this answer.
    await fixture.client.respond(turn, asked.payload.requestId, { approved: true });
    worker.kill("SIGCONT");

    expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "completed" });
    const events = await fixture.client.readEvents(turn);
    assertLogInvariants(events);
    // One way through, the database's: approved, the call ran once, and two requests (before and after it).
    const approvals = events.flatMap((e) =>
      e.type === "debug.trace" && e.payload.phase === "durable.approval" ? [e.payload.attrs?.result] : [],
    );
    expect(approvals).toEqual(["approved"]);
    expect(fixture.countsOf(turn, "tool-start")).toBe(1);
    expect(fixture.countsOf(turn, "model")).toBe(2);
  }, 60_000);

  it("with the step record before it lost too: the turn is handed back and goes on from what the database kept, not failed", async () => {
    // A deployment of its own: the worker of the test before, awake again, takes none of its turns.
    const { client, env } = await fixture.deployment("record-lost");
    await fixture.cluster.start("v", { ...env, TURNKIT_DURABLE_FAULT: "approval-received" });
    const turn = await client.start({
      sessionId: "s-record-lost",
      turnId: "record-lost",
      userMessage: { text: "write it" },
      metadata: { scenario: "approval" },
    });
    await waitFor("the approval request", async () =>
      (await client.readEvents(turn)).some((e) => e.type === "action.required"),
    );
    const [asked] = (await client.readEvents(turn)).filter((e) => e.type === "action.required");
    if (asked?.type !== "action.required") throw new Error("no approval request");
    await client.respond(turn, asked.payload.requestId, { approved: true });
    const worker = fixture.cluster.detach("v");
    await waitFor("the wait took the answer and the worker stopped", () => isStopped(worker.pid!));

    const admin = await connectAdmin(fixture.postgres.url);
    try {
      // A crash that lost the model request's record (committed without waiting for the disk) lost every commit
      // after it: the wait's row too, and the answer is unread again.
      const lost = await admin.query(
        `DELETE FROM dbos.operation_outputs WHERE workflow_uuid = $1
           AND (function_name = 'DBOS.recv' OR function_name LIKE 'turnkit.model-request%')
         RETURNING function_name`,
        [turn.workflowId],
      );
      expect(lost.rows.map((row: { function_name: string }) => row.function_name).sort()).toEqual([
        "DBOS.recv",
        expect.stringMatching(/^turnkit\.model-request/),
      ]);
      await admin.query(
        "UPDATE dbos.notifications SET consumed = false, consumed_by_function_id = NULL WHERE destination_uuid = $1",
        [turn.workflowId],
      );
    } finally {
      await admin.end();
    }
    worker.kill("SIGCONT");

    // Before, the execution's next write found its claim refused while DBOS's token was still its own, and DBOS
    // recorded the superseded error as the turn's failure.
    expect(await client.outcome(turn)).toMatchObject({ kind: "completed" });
    assertLogInvariants(await client.readEvents(turn));
    expect(fixture.countsOf(turn, "tool-start")).toBe(1);
    // The request whose record was lost is sent again, then the one after the call.
    expect(fixture.countsOf(turn, "model")).toBe(3);
  }, 60_000);
});
