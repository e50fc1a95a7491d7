/**
 * A turn whose DBOS workflow is cancelled with DBOS's own tools
 * (`cancelWorkflow`, as an operator would from DBOS's tooling) ends as an
 * aborted turn does, once: its log ends (a `durable.cancelled` trace, then
 * `aborted`), its calls are answered in the history, the messages it never
 * took are handed back, and it never runs on: not when a worker takes over
 * the dead worker that ran it, nor when DBOS resumes it afterwards.
 */
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import { assertRuntimeEventSequence, assertToolCallsAnswered } from "@turnkit/agent-core/testing";
import { isTerminalEvent, type RuntimeEvent } from "@turnkit/protocol";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DurableTurnRef, DurableTurnError } from "../src/index.js";
import { useDurableFixture } from "./support/durable-fixture.js";
import { assertLogInvariants, userTexts } from "./support/log-assertions.js";
import { waitFor } from "./support/worker-cluster.js";

const fixture = useDurableFixture([{ id: "w1", env: { LEASE_MS: "1500" } }]);
let dbos: DBOSClient;

beforeAll(async () => {
  dbos = await DBOSClient.create({ systemDatabaseUrl: fixture.postgres.url });
});
afterAll(async () => {
  await dbos?.destroy();
});

/** Every event `follow` yields for `turn`, failing after 10 s instead of waiting for an ending forever. */
async function followToEnd(turn: DurableTurnRef): Promise<RuntimeEvent[]> {
  const events: RuntimeEvent[] = [];
  for await (const event of fixture.client.follow(turn, { signal: AbortSignal.timeout(10_000) })) events.push(event);
  return events;
}

function expectCancelledEnding(events: RuntimeEvent[]): void {
  assertLogInvariants(events);
  expect(assertRuntimeEventSequence(events)).toBe("aborted");
  expect(events.at(-2)).toMatchObject({ type: "debug.trace", payload: { phase: "durable.cancelled", level: "warn" } });
}

describe("a turn cancelled with DBOS's tools", () => {
  it("ends aborted once: followers see the ending, its call is answered, the next turn of its session runs", async () => {
    const turn = await fixture.startWaitingForApproval("waiting");
    await dbos.cancelWorkflow(turn.workflowId);
    const events = await followToEnd(turn);
    expectCancelledEnding(events);
    expect(await fixture.client.status(turn)).toEqual({ state: "finished" });
    expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "aborted" });
    expect(await fixture.client.steer(turn, { text: "late" })).toEqual({ accepted: false, reason: "closed" });
    const history = await fixture.client.readHistory(turn.sessionId);
    expect(assertToolCallsAnswered(history)).toBe(1);
    // The log announced every message the history holds.
    const announced = events.flatMap((e) => (e.type === "message.persisted" ? e.payload.messages : []));
    expect(history).toEqual(announced);
    // A finished turn: a fork at it has its history.
    await fixture.client.fork(turn, "s-waiting-fork");
    expect(await fixture.client.readHistory("s-waiting-fork")).toEqual(history);

    const next = await fixture.client.start({
      sessionId: turn.sessionId,
      turnId: "after",
      userMessage: { text: "hi" },
    });
    expect(await fixture.client.outcome(next)).toMatchObject({ kind: "completed" });
    assertToolCallsAnswered(await fixture.client.readHistory(turn.sessionId));
    expect(await fixture.client.readEvents(turn)).toEqual(events);
  });

  it("is ended, its call answered, before the next turn of its session loads the history", async () => {
    const turn = await fixture.startWaitingForApproval("first");
    // Queued behind it: DBOS's cancel lets it start at once, before anyone else looks at the cancelled turn.
    const next = await fixture.client.start({
      sessionId: turn.sessionId,
      turnId: "second",
      userMessage: { text: "hi" },
    });
    await dbos.cancelWorkflow(turn.workflowId);
    expect(await fixture.client.outcome(next)).toMatchObject({ kind: "completed" });
    expect(assertToolCallsAnswered(await fixture.client.readHistory(turn.sessionId))).toBe(1);
    expectCancelledEnding(await fixture.client.readEvents(turn));
  });

  it("announces what the turn stored in the history but had not yet logged when it was cancelled", async () => {
    const turn = await fixture.startWaitingForApproval("unannounced");
    // As the turn leaves it when the cancel comes between storing a result and logging its announcement.
    const stored = await fixture.client.readHistory(turn.sessionId);
    const result = {
      role: "toolResult",
      toolCallId: "unannounced-call-0",
      toolName: "guarded_write",
      content: [{ type: "text", text: "written" }],
      isError: false,
      timestamp: 1,
    };
    const db = new pg.Client({ connectionString: fixture.postgres.url });
    await db.connect();
    try {
      await db.query(
        "INSERT INTO turnkit_durable.session_messages (session_id, position, turn_key, message) VALUES ($1, $2, $3, $4)",
        [turn.sessionId, stored.length, turn.workflowId, JSON.stringify(result)],
      );
      await dbos.cancelWorkflow(turn.workflowId);
    } finally {
      await db.end();
    }
    const events = await followToEnd(turn);
    expectCancelledEnding(events);
    const history = await fixture.client.readHistory(turn.sessionId);
    expect(history).toEqual([...stored, result]);
    expect(history).toEqual(events.flatMap((e) => (e.type === "message.persisted" ? e.payload.messages : [])));
  });

  it("hands back the user message and the steering of a turn cancelled while queued", async () => {
    const first = await fixture.startWaitingForApproval("holding");
    const queued = await fixture.client.start({
      sessionId: first.sessionId,
      turnId: "queued",
      userMessage: { text: "never run" },
    });
    expect(await fixture.client.steer(queued, { text: "also this" })).toEqual({ accepted: true });
    await dbos.cancelWorkflow(queued.workflowId);
    const events = await followToEnd(queued);
    expectCancelledEnding(events);
    const ending = events.at(-1)!;
    expect(ending.type === "session.status" && userTexts(ending.payload.undeliveredMessages ?? [])).toEqual([
      "never run",
      "also this",
    ]);
    expect(await fixture.client.outcome(queued)).toEqual({ kind: "aborted", undeliveredMessages: expect.any(Array) });
    await fixture.client.respond(first, "approval:holding-call-0", { approved: true });
    expect(await fixture.client.outcome(first)).toMatchObject({ kind: "completed" });
  });

  it("client.abort of a turn queued behind its session's running turn ends it at once, without running, its message handed back", async () => {
    const first = await fixture.startWaitingForApproval("ahead");
    const queued = await fixture.client.start({
      sessionId: first.sessionId,
      turnId: "stopped-in-queue",
      userMessage: { text: "stop me" },
    });
    expect(await fixture.client.status(queued)).toEqual({ state: "queued" });
    await fixture.client.abort(queued);
    // Before, it stayed queued until the turn ahead ended, and only then ended aborted.
    expect(await fixture.client.status(queued)).toEqual({ state: "finished" });
    const events = await fixture.client.readEvents(queued);
    assertLogInvariants(events);
    expect(assertRuntimeEventSequence(events)).toBe("aborted");
    expect(events.at(-2)).toMatchObject({
      type: "debug.trace",
      payload: { phase: "durable.cancelled", message: expect.stringMatching(/^the turn was aborted/) },
    });
    const ending = events.at(-1)!;
    expect(ending.type === "session.status" && userTexts(ending.payload.undeliveredMessages ?? [])).toEqual([
      "stop me",
    ]);
    expect(events.some((e) => e.type === "stream.resp")).toBe(false);
    // The turn ahead is untouched, and the session goes on.
    expect(await fixture.client.status(first)).toMatchObject({ state: "running" });
    await fixture.client.respond(first, "approval:ahead-call-0", { approved: true });
    expect(await fixture.client.outcome(first)).toMatchObject({ kind: "completed" });
    const history = await fixture.client.readHistory(first.sessionId);
    expect(userTexts(history)).not.toContain("stop me");
  });

  it("is ended by a worker without anyone following it, and stays ended when DBOS resumes it", async () => {
    const turn = await fixture.startWaitingForApproval("resumed");
    await dbos.cancelWorkflow(turn.workflowId);
    // Nobody follows: the worker's sweep ends it.
    await waitFor("the ending", async () => (await fixture.client.readEvents(turn)).some(isTerminalEvent));
    const events = await fixture.client.readEvents(turn);
    expectCancelledEnding(events);
    await dbos.resumeWorkflow(turn.workflowId);
    expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "aborted" });
    expect(await fixture.client.readEvents(turn)).toEqual(events);
    expect(fixture.countsOf(turn, "tool-start")).toBe(0);
  });

  it("cancelled after its log ended but before it stored its outcome, it keeps the outcome its log ends with", async () => {
    const turn = await fixture.client.start({ sessionId: "s-late", turnId: "late", userMessage: { text: "hi" } });
    expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "completed" });
    const events = await fixture.client.readEvents(turn);
    // As a cancel landing between the turn's ending and its last step would leave it.
    const db = new pg.Client({ connectionString: fixture.postgres.url });
    await db.connect();
    try {
      await db.query("UPDATE dbos.workflow_status SET status = 'CANCELLED' WHERE workflow_uuid = $1", [
        turn.workflowId,
      ]);
      await db.query("UPDATE turnkit_durable.turns SET outcome = NULL, history_end = NULL WHERE turn_key = $1", [
        turn.workflowId,
      ]);
    } finally {
      await db.end();
    }
    const outcome = await fixture.client.outcome(turn, { pollingIntervalMs: 20 });
    expect(outcome).toMatchObject({ kind: "completed" });
    expect(await fixture.client.status(turn)).toEqual({ state: "finished" });
    expect(await fixture.client.listTurns("s-late")).toMatchObject([{ turnId: "late", state: "finished" }]);
    await fixture.client.fork(turn, "s-late-fork");
    expect(await fixture.client.readHistory("s-late-fork")).toEqual(await fixture.client.readHistory("s-late"));
    expect(await fixture.client.readEvents(turn)).toEqual(events);
  });

  it("withdraws a tool's open question: respond refuses it, saying the turn was cancelled", async () => {
    const turn = await fixture.client.start({
      sessionId: "s-asked",
      turnId: "asked",
      userMessage: { text: "which branch?" },
      metadata: { scenario: "ask" },
    });
    await waitFor("the question", async () => (await fixture.eventsOfType(turn, "action.required")).length === 1);
    const [asked] = await fixture.eventsOfType(turn, "action.required");
    if (asked?.type !== "action.required") throw new Error("no question");
    await dbos.cancelWorkflow(turn.workflowId);
    expectCancelledEnding(await followToEnd(turn));
    const refused = await fixture.client
      .respond(turn, asked.payload.requestId, { action: "accept", content: { branch: "main" } })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(DurableTurnError.isInstance(refused)).toBe(true);
    expect(refused).toMatchObject({
      code: "request_withdrawn",
      message: `turn asked withdrew ${JSON.stringify(asked.payload.requestId)}: the turn was cancelled before it was answered`,
    });
  });

  it("never runs on when it is cancelled while its worker is dead and another takes the worker's turns over", async () => {
    const turn = await fixture.startWaitingForApproval("orphan");
    await fixture.cluster.kill("w1");
    await dbos.cancelWorkflow(turn.workflowId);
    await fixture.client.respond(turn, "approval:orphan-call-0", { approved: true });
    await fixture.cluster.start("w2", { LEASE_MS: "1500" });
    const events = await followToEnd(turn);
    expectCancelledEnding(events);
    // The survivor took the dead worker's lease (its row is gone) and ran nothing of the turn.
    await waitFor("the takeover", async () => {
      const db = new pg.Client({ connectionString: fixture.postgres.url });
      await db.connect();
      const { rows } = await db
        .query("SELECT 1 FROM turnkit_durable.workers WHERE executor_id LIKE 'w1#%'")
        .finally(() => db.end());
      return rows.length === 0;
    });
    expect(fixture.countsOf(turn, "tool-start")).toBe(0);
    expect(await fixture.client.readEvents(turn)).toEqual(events);
  });
});
