import pg from "pg";
import { describe, expect, it } from "vitest";
import { type DurableTurnRef, INTERRUPTED_TOOL_RESULT_TEXT } from "../src/index.js";
import { assertLogInvariants, toolStatuses } from "./support/log-assertions.js";
import { useDurableFixture } from "./support/durable-fixture.js";
import { waitFor } from "./support/worker-cluster.js";

const fixture = useDurableFixture([{ id: "c1", env: { LEASE_MS: "1500" } }]);

/** The text of every tool result chunk of the log, in log order. */
async function toolResults(turn: DurableTurnRef): Promise<string[]> {
  const events = await fixture.client.readEvents(turn);
  return events.flatMap((e) =>
    e.type === "stream.resp" && e.payload.chunk.kind === "tool_call" && e.payload.chunk.result
      ? e.payload.chunk.result.content.map((block) => (block.type === "text" ? block.text : ""))
      : [],
  );
}

/** How the approval waits of the turn ended, as logged (`durable.approval` traces). */
async function approvalResults(turn: DurableTurnRef): Promise<unknown[]> {
  return (await fixture.client.readEvents(turn)).flatMap((e) =>
    e.type === "debug.trace" && e.payload.phase === "durable.approval" ? [e.payload.attrs?.result] : [],
  );
}

/** How soon a requested abort must end a turn's approval wait (the worker looks every 150 ms; a loaded machine). */
const ABORT_REACH_MS = 10_000;

describe("a crash, then an abort before the turn resumes", () => {
  it("the calls running at the crash are answered as interrupted (they may have run), all alike, and none runs again", async () => {
    const turn = await fixture.client.start({
      sessionId: "s-crash-abort",
      turnId: "crash-abort",
      userMessage: { text: "read them" },
      metadata: { scenario: "parallel" },
    });
    // The quick call ended; the two others run until the kill.
    await waitFor(
      "three calls started, one finished",
      () => fixture.countsOf(turn, "tool-start") === 3 && fixture.countsOf(turn, "tool-end") === 1,
      60_000,
    );
    await fixture.cluster.kill("c1");
    await fixture.client.abort(turn);
    await fixture.cluster.start("c1", { LEASE_MS: "1500" });
    expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "aborted" });
    const events = await fixture.client.readEvents(turn);
    assertLogInvariants(events);
    const results = await toolResults(turn);
    // The quick call's end may have been recorded before the kill or not: either its result or "interrupted".
    expect(results[0]).toMatch(/^read crash-abort-0\.txt$|^This tool call was interrupted/);
    expect(results.slice(1)).toEqual([INTERRUPTED_TOOL_RESULT_TEXT, INTERRUPTED_TOOL_RESULT_TEXT]);
    expect(toolStatuses(events).slice(-2)).toEqual(["failed", "failed"]);
    expect(fixture.countsOf(turn, "tool-start")).toBe(3);
  }, 120_000);
});

describe("idempotency keys", () => {
  it("a replay: safe call run again after a crash gets the key of its interrupted attempt", async () => {
    const turn = await fixture.client.start({
      sessionId: "s-key",
      turnId: "key",
      userMessage: { text: "read it" },
      metadata: { scenario: "safe-tool", toolMs: 60_000 },
    });
    await waitFor("the call started", () => fixture.countsOf(turn, "tool-start") === 1, 60_000);
    await fixture.cluster.kill("c1");
    await fixture.cluster.start("c1", { LEASE_MS: "1500" });
    await waitFor("the call started again", () => fixture.countsOf(turn, "tool-start") === 2, 60_000);
    const starts = fixture.cluster.counts().filter((c) => c.turnId === "key" && c.kind === "tool-start");
    // The workflow id, the step's position and the call id: unique per call of the deployment.
    expect(starts[0]!.key).toMatch(/^turn:s-key:key\/\d+:key-call-0$/);
    expect(starts[1]!.key).toBe(starts[0]!.key);
    await fixture.client.abort(turn);
    expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "aborted" });
  }, 120_000);
});

describe("an abort whose process died half-way", () => {
  it("a turn waiting for approval ends aborted though the abort's notice never came", async () => {
    const turn = await fixture.startWaitingForApproval("half-abort", {}, 60_000);
    // An abort request without its notice, as a client that wrote the two apart could leave it when its process
    // was killed between them (`abort` now commits them together).
    const db = new pg.Client({ connectionString: fixture.postgres.url });
    await db.connect();
    try {
      await db.query("UPDATE turnkit_durable.turns SET abort_requested = true WHERE turn_key = $1", [turn.workflowId]);
    } finally {
      await db.end();
    }
    expect(await fixture.client.steer(turn, { text: "more" })).toEqual({ accepted: false, reason: "aborted" });
    // The abort is requested, so it is honoured: the worker finds it at its next look (every 150 ms) and sends the
    // notice, which ends the wait, logged as aborted: within seconds, not at the wait's deadline. What this bounds is
    // that reach; the rest of the turn then runs in however long a loaded machine takes.
    const requestedAt = performance.now();
    await waitFor(
      "the approval wait ended on the abort",
      async () => (await approvalResults(turn)).length > 0,
      ABORT_REACH_MS,
    );
    console.log(`the approval wait ended ${Math.round(performance.now() - requestedAt)} ms after the abort request`);
    expect(await approvalResults(turn)).toEqual(["aborted"]);
    expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "aborted" });
    const events = await fixture.client.readEvents(turn);
    assertLogInvariants(events);
    expect(fixture.countsOf(turn, "tool-start")).toBe(0);
  }, 120_000);
});
