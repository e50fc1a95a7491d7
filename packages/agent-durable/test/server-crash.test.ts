/**
 * Postgres crashes (an immediate shutdown, as a crash of its host or
 * process), losing the commits made without waiting for the disk since the
 * last one that waited.
 *
 * Right after a turn ended: the end of its DBOS workflow was lost. The turn
 * was pending again under an execution that had already returned, in a
 * worker whose lease lived on: nothing ever ran it again, and `outcome`
 * waited for ever (a driver crashing a crash-safe server during chaos
 * turns: two turns never ended, seeds 112228350 and 124290106). A turn
 * whose execution began before the server last started is queued again.
 *
 * While a turn streams: the events and history rows it wrote since the
 * claim check before its request were lost, and the execution, still
 * running in its worker, went on writing after them: its log had a gap (a
 * driver restarting a crash-safe server, seed 112228350: seqs 37 and 38
 * missing). A write that finds the event (or message) before it missing
 * hands the turn back, and the next execution writes the lost ones again.
 *
 * Right after an approval wait timed out: the wait's record (a DBOS step
 * row, `DBOS.recv`'s) was lost, and the execution, stopped there until the
 * server was back, logged the timeout and blocked the call, while the
 * replay took the answer given since: the call ran though the log said it
 * was blocked, and the turn failed on the log's conflict. DBOS's own rows
 * count among the records the execution's claim depends on.
 */
import { readFileSync } from "node:fs";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { DurableTurnClient } from "../src/index.js";
import { assertLogInvariants } from "./support/log-assertions.js";
import { useOwnServer } from "./support/own-server.js";
import { queuedAgainSinceServerStart } from "./support/turn-executor.js";
import { waitFor } from "./support/worker-cluster.js";

// A server that keeps what it acknowledged as durable, whose WAL writer waits long: a commit that did not wait for
// the disk stays in memory until a commit that waits (or 10 s) writes it, so a crash loses it.
const own = useOwnServer("crash", { crashSafe: true, maxConnections: 200, settings: { wal_writer_delay: "10000" } });

/** The status of the turn's DBOS workflow. */
async function workflowStatus(workflowId: string): Promise<string> {
  const db = new pg.Client({ connectionString: own.url });
  db.on("error", () => {});
  await db.connect();
  try {
    const { rows } = await db.query("SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1", [workflowId]);
    return rows[0].status;
  } finally {
    await db.end();
  }
}

describe("Postgres crashes right after a turn ended", () => {
  it("the turn, pending again, is run again from its records and ends with the outcome it recorded", async (context) => {
    // A lease the worker keeps across the crash (it beats every 2 s), so no takeover queues the turn again.
    await own.cluster.start("w", { LEASE_MS: "8000" });
    const client = await DurableTurnClient.connect({ databaseUrl: own.url });
    try {
      // A commit that waits for the disk (a heartbeat that came first) also writes the ones before it, so a crash
      // does not always lose the workflow's end: the scenario is tried up to three times, each with a turn of its own.
      let lost: { turn: Awaited<ReturnType<typeof client.start>>; turnId: string } | undefined;
      for (let attempt = 1; attempt <= 3 && lost === undefined; attempt++) {
        const turnId = `crash-${attempt}`;
        const turn = await client.start({ sessionId: `s-${turnId}`, turnId, userMessage: { text: "hi" } });
        expect(await client.outcome(turn)).toMatchObject({ kind: "completed" });
        await own.server.crashAndRestart();
        if ((await workflowStatus(turn.workflowId)) !== "SUCCESS") lost = { turn, turnId };
      }
      if (lost === undefined) return context.skip("three crashes kept the workflow's end: the scenario never happened");
      // Queued again at one of the worker's next looks (a quarter lease apart, once it beat since the restart):
      // before, it stayed pending for ever. What this bounds is that; the run from its records then takes however
      // long a loaded machine takes.
      const requeuedMs = await queuedAgainSinceServerStart(own.url, lost.turn, 10_000);
      console.log(
        `the turn whose end the crash lost was queued again ${Math.round(requeuedMs)} ms after its end was found lost`,
      );
      expect(await client.outcome(lost.turn)).toMatchObject({ kind: "completed" });
      assertLogInvariants(await client.readEvents(lost.turn));
      expect(own.cluster.counts().filter((c) => c.turnId === lost.turnId && c.kind === "model")).toHaveLength(1);
    } finally {
      await client.close();
      await own.cluster.terminate("w");
    }
  }, 60_000);
});

describe("Postgres crashes while a turn streams", () => {
  it("the execution that goes on after the crash writes nothing after the events and messages the crash lost", async (context) => {
    // One worker whose heartbeats (commits that wait for the disk, every quarter lease) are 10 s apart: what the
    // stream logged since the claim check before its request (a commit that waited) is on no disk at the crash.
    await own.cluster.start("s", { LEASE_MS: "40000" });
    const client = await DurableTurnClient.connect({ databaseUrl: own.url });
    try {
      const turn = await client.start({
        sessionId: "s-stream",
        turnId: "stream",
        userMessage: { text: "hi" },
        metadata: { scenario: "safe-tool", toolMs: 50, afterToolDeltas: 80, delayMs: 40, resendDelayMs: 1 },
      });
      const streamed = async () =>
        (await client.readEvents(turn)).filter((e) => e.type === "stream.resp" && e.payload.chunk.kind === "text");
      await waitFor("ten streamed deltas after the tool call", async () => (await streamed()).length >= 10);
      const before = await client.readEvents(turn);
      await own.server.crashAndRestart();
      // Read at once, before the turn goes on: the events the crash lost (the execution in the worker holds them).
      const kept = new Set((await client.readEvents(turn)).map((e) => e.seq));
      const lost = before.filter((e) => !kept.has(e.seq)).map((e) => e.seq);
      expect(await client.outcome(turn)).toMatchObject({ kind: "completed" });
      if (lost.length === 0) return context.skip("the crash lost no event: the scenario never happened");
      const events = await client.readEvents(turn);
      assertLogInvariants(events);
      // The history the next turn starts from: the user's message, the call, its result and the answer, once each.
      const history = await client.readHistory("s-stream");
      expect(history.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    } finally {
      await client.close();
      await own.cluster.terminate("s");
    }
  }, 60_000);
});

describe("Postgres crashes right after an approval wait timed out", () => {
  it("the execution that goes on acts on nothing of the lost wait; the turn takes the answer given since", async (context) => {
    // Heartbeats 10 s apart, and the worker stops itself right after its wait ended (before acting on it): nothing
    // commits with a wait for the disk between the wait's end and the crash.
    await own.cluster.start("a", { LEASE_MS: "40000", TURNKIT_DURABLE_FAULT: "approval-received" });
    const client = await DurableTurnClient.connect({ databaseUrl: own.url });
    const db = new pg.Client({ connectionString: own.url });
    db.on("error", () => {});
    await db.connect();
    try {
      const turn = await client.start({
        sessionId: "s-approval",
        turnId: "approval",
        userMessage: { text: "write it" },
        metadata: { scenario: "approval", approvalTimeoutMs: 1500 },
      });
      const stepsOf = async () =>
        (
          await db.query("SELECT function_name FROM dbos.operation_outputs WHERE workflow_uuid = $1", [turn.workflowId])
        ).rows.map((row: { function_name: string }) => row.function_name);
      await waitFor("the wait's deadline recorded", async () => (await stepsOf()).includes("DBOS.sleep"));
      // A commit that waits for the disk (as a heartbeat's would): everything before the wait's end is kept.
      await db.query("CREATE TABLE IF NOT EXISTS flushed (at timestamptz); INSERT INTO flushed VALUES (now())");
      const worker = own.cluster.detach("a");
      await waitFor("the wait timed out and the worker stopped", () => isStopped(worker.pid!));
      await own.server.crashAndRestart();
      await db.end();
      const after = new pg.Client({ connectionString: own.url });
      await after.connect();
      const kept = (
        await after.query("SELECT function_name FROM dbos.operation_outputs WHERE workflow_uuid = $1", [
          turn.workflowId,
        ])
      ).rows.map((row: { function_name: string }) => row.function_name);
      await after.end();
      if (kept.includes("DBOS.recv")) {
        worker.kill("SIGCONT");
        return context.skip("the crash kept the wait's record: the scenario never happened");
      }
      // A person answers after the deadline: the database holds the wait as still open, and now this answer.
      const [asked] = (await client.readEvents(turn)).filter((e) => e.type === "action.required");
      if (asked?.type !== "action.required") throw new Error("no approval request");
      await client.respond(turn, asked.payload.requestId, { approved: true });
      worker.kill("SIGCONT");

      expect(await client.outcome(turn)).toMatchObject({ kind: "completed" });
      const events = await client.readEvents(turn);
      assertLogInvariants(events);
      const approvals = events.flatMap((e) =>
        e.type === "debug.trace" && e.payload.phase === "durable.approval" ? [e.payload.attrs?.result] : [],
      );
      expect(approvals).toEqual(["approved"]);
      const counts = own.cluster.counts().filter((c) => c.turnId === "approval");
      expect(counts.filter((c) => c.kind === "tool-start")).toHaveLength(1);
      expect(counts.filter((c) => c.kind === "model")).toHaveLength(2);
    } finally {
      await db.end().catch(() => {});
      await client.close();
    }
  }, 60_000);
});

/** Whether process `pid` is stopped (`SIGSTOP`): its state in /proc is `T`. */
function isStopped(pid: number): boolean {
  return /^\d+ \(.*\) T/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
}
