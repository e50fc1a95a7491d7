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
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { DurableTurnClient } from "../src/index.js";
import { assertLogInvariants } from "./support/log-assertions.js";
import { useOwnServer } from "./support/own-server.js";
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
      const outcome = await Promise.race([
        client.outcome(lost.turn),
        new Promise((resolve) => setTimeout(() => resolve("still pending after 15 s"), 15_000)),
      ]);
      expect(outcome).toMatchObject({ kind: "completed" });
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
