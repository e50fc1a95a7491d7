import { writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import type { RuntimeEvent } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import { DurableTurnError, approvalRequestId } from "../src/index.js";
import { assertLogInvariants, finalText, toolStatuses } from "./support/log-assertions.js";
import { useDurableFixture } from "./support/durable-fixture.js";
import { waitFor } from "./support/worker-cluster.js";

const fixture = useDurableFixture([{ id: "a1", env: { LEASE_MS: "1500" } }]);
/** How soon a follower must end once the turn's workflow was given up (it looks every 500 ms; a loaded machine). */
const FOLLOW_NOTICES_MS = 10_000;

describe("a turn whose workflow ends without an outcome", () => {
  it("outcome() and follow() reject with a DurableTurnError (workflow_failed, DBOS's error as cause); status says failed", async () => {
    const turn = await fixture.startWaitingForApproval("cancelled");
    // A reader follows the turn, waiting for its ending.
    const followed: RuntimeEvent[] = [];
    const stopFollowing = new AbortController();
    const following = (async () => {
      for await (const event of fixture.client.follow(turn, { signal: stopFollowing.signal })) followed.push(event);
    })();
    // DBOS gives the workflow up (as after too many recovery attempts): the turn never reaches an outcome. (A turn
    // cancelled with DBOS's tools ends aborted instead: see dbos-cancel.test.ts.)
    const db = new pg.Client({ connectionString: fixture.postgres.url });
    await db.connect();
    try {
      await db.query(
        "UPDATE dbos.workflow_status SET status = 'MAX_RECOVERY_ATTEMPTS_EXCEEDED', owner_xid = NULL WHERE workflow_uuid = $1",
        [turn.workflowId],
      );
    } finally {
      await db.end();
    }
    const givenUpAt = performance.now();
    const error = await fixture.client.outcome(turn).catch((caught: unknown) => caught);
    expect(DurableTurnError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "workflow_failed" });
    expect((error as Error).message).toMatch(/^The turn's workflow ended without an outcome: /);
    expect((error as Error).cause).toBeInstanceOf(Error);
    expect(await fixture.client.status(turn)).toEqual({ state: "failed" });
    // The reader gets every logged event, then the same error, instead of waiting for an ending that never comes: it
    // looks at the workflow whenever a read finds nothing new (at least every 500 ms). What this bounds is that look,
    // from the moment the workflow was given up (not after outcome and status, however long they took under load).
    const followEnded = await Promise.race([
      following.then(
        () => "ended without an error",
        (caught: unknown) => caught,
      ),
      sleep(Math.max(0, FOLLOW_NOTICES_MS - (performance.now() - givenUpAt)), "still following"),
    ]);
    const followMs = Math.round(performance.now() - givenUpAt);
    stopFollowing.abort();
    expect(followEnded).toMatchObject({ code: "workflow_failed" });
    console.log(`the follow ended ${followMs} ms after the workflow was given up`);
    expect(followed).toEqual(await fixture.client.readEvents(turn));
  }, 90_000);
});

describe("approvals", () => {
  it("an approval asked before a crash is answered from another process after the asking worker restarted", async () => {
    const turn = await fixture.startWaitingForApproval("approve", { toolMs: 20 });
    const [asked] = await fixture.eventsOfType(turn, "action.required");
    expect(asked.payload).toMatchObject({
      requestId: approvalRequestId("approve-call-0"),
      kind: "tool_approval",
      toolName: "guarded_write",
      arguments: { path: "approve.txt" },
    });
    await fixture.cluster.kill("a1");
    await fixture.cluster.start("a1", { LEASE_MS: "1500" });
    await expect(fixture.client.respond(turn, "approval:nothing", { approved: true })).rejects.toSatisfy(
      (e) => DurableTurnError.isInstance(e) && e.code === "unknown_request",
    );
    await fixture.client.respond(turn, approvalRequestId("approve-call-0"), { approved: true });
    expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "completed" });
    const events = await fixture.client.readEvents(turn);
    assertLogInvariants(events);
    expect(events.filter((e) => e.type === "action.required")).toHaveLength(1);
    expect(fixture.countsOf(turn, "tool-start")).toBe(1);
    expect(fixture.countsOf(turn, "tool-end")).toBe(1);
    expect(finalText(events)).toBe("after tool: wrote approve.txt");
  }, 90_000);

  it("a denied call is blocked with the person's reason; a call nobody answers times out as blocked", async () => {
    const denied = await fixture.client.start({
      sessionId: "s-deny",
      turnId: "deny",
      userMessage: { text: "write it" },
      metadata: { scenario: "approval" },
    });
    const silent = await fixture.client.start({
      sessionId: "s-silent",
      turnId: "silent",
      userMessage: { text: "write it" },
      metadata: { scenario: "approval", approvalTimeoutMs: 500 },
    });
    await waitFor(
      "the approval request",
      async () => (await fixture.eventsOfType(denied, "action.required")).length === 1,
    );
    await fixture.client.respond(denied, approvalRequestId("deny-call-0"), {
      approved: false,
      reason: "Not in production.",
    });
    expect(await fixture.client.outcome(denied)).toMatchObject({ kind: "completed" });
    expect(await fixture.client.outcome(silent)).toMatchObject({ kind: "completed" });
    for (const turn of [denied, silent]) {
      const events = await fixture.client.readEvents(turn);
      assertLogInvariants(events);
      expect(toolStatuses(events)).toEqual(["preparing", "failed"]);
      expect(fixture.countsOf(turn, "tool-start")).toBe(0);
    }
    expect(finalText(await fixture.client.readEvents(denied))).toBe("after tool: Not in production.");
    expect(finalText(await fixture.client.readEvents(silent))).toMatch(
      /^after tool: Nobody approved this call within 500/,
    );
  }, 60_000);
});

describe("steering", () => {
  it("a message steered from another process reaches the next step boundary and is recorded; a finished turn refuses more", async () => {
    const turn = await fixture.client.start({
      sessionId: "s-steer",
      turnId: "steer",
      userMessage: { text: "write it" },
      // Its call runs until the test lets it end: the message is steered in while it runs, however slow the machine.
      metadata: { scenario: "steer", toolUntil: "steer-call-ends" },
    });
    await waitFor("the tool call started", () => fixture.countsOf(turn, "tool-start") === 1);
    expect(await fixture.client.steer(turn, { text: "steer: use the left folder" })).toEqual({ accepted: true });
    writeFileSync(`${fixture.cluster.countFile}.steer-call-ends`, "");
    expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "completed" });
    const events = await fixture.client.readEvents(turn);
    assertLogInvariants(events);
    expect(finalText(events)).toBe("heard steer: use the left folder");
    const received = events.filter((e) => e.type === "debug.trace" && e.payload.phase === "durable.steering");
    expect(received.map((e) => e.type === "debug.trace" && e.payload.attrs?.text)).toEqual([
      "steer: use the left folder",
    ]);
    expect(await fixture.client.steer(turn, { text: "too late" })).toEqual({ accepted: false, reason: "closed" });
    await expect(fixture.client.steer({ sessionId: "s-steer", turnId: "nope" }, { text: "x" })).rejects.toSatisfy(
      (e) => DurableTurnError.isInstance(e) && e.code === "unknown_turn",
    );
  }, 60_000);
});

describe("abort", () => {
  it("aborts a streaming response from another process: outcome aborted, one terminal event", async () => {
    const turn = await fixture.client.start({
      sessionId: "s-abort",
      turnId: "abort",
      userMessage: { text: "talk" },
      metadata: { scenario: "stream", deltas: 200, delayMs: 30 },
    });
    await waitFor("streamed deltas", async () => (await fixture.eventsOfType(turn, "stream.resp")).length >= 5);
    await fixture.client.abort(turn);
    expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "aborted" });
    const events = await fixture.client.readEvents(turn);
    assertLogInvariants(events);
    expect(events.at(-1)).toMatchObject({ type: "session.status", payload: { status: "aborted" } });
  }, 60_000);

  it("aborts a turn waiting for approval: the call is answered, never run", async () => {
    const turn = await fixture.startWaitingForApproval("abort-wait");
    await fixture.client.abort(turn);
    expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "aborted" });
    const events = await fixture.client.readEvents(turn);
    assertLogInvariants(events);
    expect(toolStatuses(events)).toEqual(["preparing", "failed"]);
    expect(fixture.countsOf(turn, "tool-start")).toBe(0);
  }, 60_000);
});

describe("bad input", () => {
  it("a malformed request is refused before anything is stored; a turn whose setup throws fails with a terminal event", async () => {
    await expect(fixture.client.start({ sessionId: "s-bad", turnId: "t1" })).rejects.toSatisfy(
      (e) => DurableTurnError.isInstance(e) && e.code === "invalid_input" && /userMessage\.text/.test(e.message),
    );
    await expect(fixture.client.start({ sessionId: "", turnId: "t1", userMessage: { text: "x" } })).rejects.toSatisfy(
      (e) => DurableTurnError.isInstance(e) && e.code === "invalid_input" && /sessionId/.test(e.message),
    );
    const turn = await fixture.client.start({
      sessionId: "s-bad",
      turnId: "broken",
      userMessage: { text: "x" },
      metadata: { scenario: "broken" },
    });
    const error = { code: "internal", message: "no model is configured for this turn" };
    expect(await fixture.client.outcome(turn)).toEqual({ kind: "failed", message: error.message, error });
    const events = await fixture.client.readEvents(turn);
    assertLogInvariants(events);
    expect(events.map((e) => e.payload)).toEqual([{ status: "running" }, { status: "failed", error }]);
  }, 60_000);
});
