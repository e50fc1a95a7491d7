/*
 * Sessions from the client: listing them and their turns, reading the
 * history the next turn sees, forking at a finished turn and rewinding to
 * one, while other turns run and after a worker was killed; and the typed
 * errors of bad input, which write nothing. One worker process (killed and
 * started again in one test).
 */
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import type { AgentMessage } from "@turnkit/agent-loop";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { DEFAULT_APP_VERSION, DEFAULT_QUEUE_NAME, DEFAULT_SCHEMA, TURN_WORKFLOW_NAME } from "../src/defaults.js";
import { turnRef } from "../src/turn/turn-request.js";
import type { DurableTurnErrorCode, DurableTurnRef, DurableTurnRequest } from "../src/index.js";
import { assertLogInvariants } from "./support/log-assertions.js";
import { useDurableFixture } from "./support/durable-fixture.js";
import { waitFor } from "./support/worker-cluster.js";

const fixture = useDurableFixture([{ id: "w1", env: { LEASE_MS: "1500" } }]);

/**
 * Starts a turn answering "ok" at once, and waits for it; or, `waiting`, one
 * that asks for an approval and runs for as long as nobody answers (see
 * {@link approve}).
 */
async function turn(sessionId: string, turnId: string, options: { waiting?: boolean; label?: string } = {}) {
  const request: DurableTurnRequest = {
    sessionId,
    turnId,
    userMessage: { text: `${turnId}?` },
    ...(options.label !== undefined && { label: options.label }),
    metadata: options.waiting ? { scenario: "approval", toolMs: 0 } : { scenario: "quick" },
  };
  const ref = await fixture.client.start(request);
  if (!options.waiting) expect(await fixture.client.outcome(ref)).toMatchObject({ kind: "completed" });
  return ref;
}

/** The role and first text of each message: enough to see which turns a history holds. */
function shape(history: AgentMessage[]): string[] {
  return history.map((message) => {
    const content = (message as { content?: unknown }).content;
    const text =
      typeof content === "string"
        ? content
        : Array.isArray(content)
          ? content.map((block: { text?: string }) => block.text ?? "").join("")
          : "";
    return `${message.role}:${text.slice(0, 12)}`;
  });
}

async function expectCode(work: Promise<unknown>, code: DurableTurnErrorCode): Promise<void> {
  await expect(work).rejects.toMatchObject({ name: "DurableTurnError", code });
}

/** The request id of the approval a waiting turn asks for, once it asked. */
async function asked(ref: DurableTurnRef): Promise<string> {
  let requestId: string | undefined;
  await waitFor("the turn asking for an approval", async () => {
    const event = (await fixture.client.readEvents(ref)).find((e) => e.type === "action.required");
    requestId = event?.type === "action.required" ? event.payload.requestId : undefined;
    return requestId !== undefined;
  });
  return requestId!;
}

/** Approves what a waiting turn asks; it then completes. */
async function approve(ref: DurableTurnRef): Promise<void> {
  await fixture.client.respond(ref, await asked(ref), { approved: true });
  expect(await fixture.client.outcome(ref)).toMatchObject({ kind: "completed" });
}

/** Queues `request` as a start would, for an application version no worker runs: it stays queued, unrecorded. */
async function enqueueForNoWorker(request: DurableTurnRequest): Promise<void> {
  const dbos = await DBOSClient.create({ systemDatabaseUrl: fixture.postgres.url });
  try {
    await dbos.enqueue(
      {
        queueName: DEFAULT_QUEUE_NAME,
        workflowName: TURN_WORKFLOW_NAME,
        workflowID: turnRef(request).workflowId,
        queuePartitionKey: request.sessionId,
        appVersion: "no-worker-runs-this",
      },
      request,
    );
  } finally {
    await dbos.destroy();
  }
}

describe("sessions", () => {
  it("lists sessions newest first in pages, a session's turns with states and labels, and its history", async () => {
    await turn("list-a", "t1", { label: "first" });
    await turn("list-a", "t2");
    await turn("list-b", "t1");
    const first = await fixture.client.listSessions({ limit: 1 });
    expect(first.sessions.map((s) => s.sessionId)).toEqual(["list-b"]);
    const second = await fixture.client.listSessions({ limit: 1, after: first.next });
    expect(second.sessions).toMatchObject([{ sessionId: "list-a", turns: 2 }]);
    expect(second.sessions[0]?.forkedFrom).toBeUndefined();

    expect(await fixture.client.listTurns("list-a")).toMatchObject([
      { turnId: "t1", label: "first", state: "finished", outcome: "completed", inHistory: true },
      { turnId: "t2", state: "finished", outcome: "completed", inHistory: true },
    ]);
    await fixture.client.labelTurn({ sessionId: "list-a", turnId: "t2" }, "second");
    await fixture.client.labelTurn({ sessionId: "list-a", turnId: "t1" }, undefined);
    const labels = (await fixture.client.listTurns("list-a")).map((t) => t.label);
    expect(labels).toEqual([undefined, "second"]);
    expect(shape(await fixture.client.readHistory("list-a"))).toEqual([
      "user:t1?",
      "assistant:ok",
      "user:t2?",
      "assistant:ok",
    ]);
  }, 60_000);

  it("forks at a finished turn and rewinds to one while other turns run; the next turn sees the new history", async () => {
    await turn("main", "t1");
    await turn("main", "t2");
    // Other turns running meanwhile: one of another session, one of this one.
    const other = await turn("other", "t1", { waiting: true });
    const running = await turn("main", "t3", { waiting: true });
    await asked(running);

    await fixture.client.fork({ sessionId: "main", turnId: "t1" }, "main-fork");
    expect(shape(await fixture.client.readHistory("main-fork"))).toEqual(["user:t1?", "assistant:ok"]);
    expect((await fixture.client.listSessions()).sessions.find((s) => s.sessionId === "main-fork")).toMatchObject({
      forkedFrom: { sessionId: "main", turnId: "t1" },
      turns: 0,
    });
    // A turn runs in the session: a rewind now would pull the history from under it.
    await expectCode(fixture.client.rewind({ sessionId: "main", turnId: "t1" }), "session_busy");
    await expectCode(fixture.client.fork(running, "fork-of-running"), "turn_not_finished");

    await approve(running);
    await fixture.client.rewind({ sessionId: "main", turnId: "t1" });
    expect(shape(await fixture.client.readHistory("main"))).toEqual(["user:t1?", "assistant:ok"]);
    expect((await fixture.client.listTurns("main")).map((t) => [t.turnId, t.inHistory])).toEqual([
      ["t1", true],
      ["t2", false],
      ["t3", false],
    ]);
    // The rewound turns' events stay readable.
    assertLogInvariants(await fixture.client.readEvents(running));

    // The next turn of each session starts from the history it was given.
    await turn("main", "t4");
    expect(shape(await fixture.client.readHistory("main"))).toEqual([
      "user:t1?",
      "assistant:ok",
      "user:t4?",
      "assistant:ok",
    ]);
    await turn("main-fork", "f1");
    expect(shape(await fixture.client.readHistory("main-fork"))).toEqual([
      "user:t1?",
      "assistant:ok",
      "user:f1?",
      "assistant:ok",
    ]);
    await approve(other);
    // The original session was never touched by the fork.
    expect((await fixture.client.listTurns("other")).map((t) => t.state)).toEqual(["finished"]);
  }, 90_000);

  it("forks and rewinds around a turn whose worker was killed, once it finished elsewhere", async () => {
    await turn("killed", "t1");
    const interrupted = await turn("killed", "t2", { waiting: true });
    await asked(interrupted);
    await fixture.cluster.kill("w1");
    // The turn is neither finished nor gone: the session stays as it was.
    await fixture.client.fork({ sessionId: "killed", turnId: "t1" }, "killed-fork");
    await expectCode(fixture.client.rewind({ sessionId: "killed", turnId: "t1" }), "session_busy");
    await expectCode(fixture.client.fork(interrupted, "killed-fork-2"), "turn_not_finished");
    await fixture.cluster.start("w1", { LEASE_MS: "1500" });
    await approve(interrupted);

    await fixture.client.fork(interrupted, "killed-fork-2");
    // t1's two messages, then t2's: the request, the call, its result, the answer.
    expect(shape(await fixture.client.readHistory("killed-fork-2"))).toHaveLength(6);
    await fixture.client.rewind({ sessionId: "killed", turnId: "t1" });
    expect(shape(await fixture.client.readHistory("killed"))).toEqual(["user:t1?", "assistant:ok"]);
    expect(shape(await fixture.client.readHistory("killed-fork"))).toEqual(["user:t1?", "assistant:ok"]);
  }, 120_000);

  it("answers bad input with a typed error and writes nothing", async () => {
    await turn("bad", "t1");
    await turn("bad", "t2");
    await fixture.client.rewind({ sessionId: "bad", turnId: "t1" });
    const sessionsBefore = (await fixture.client.listSessions({ limit: 500 })).sessions.length;

    await expectCode(fixture.client.listTurns("no-such-session"), "unknown_session");
    await expectCode(fixture.client.readHistory("no-such-session"), "unknown_session");
    await expectCode(fixture.client.rewind({ sessionId: "no-such-session", turnId: "t1" }), "unknown_session");
    await expectCode(fixture.client.fork({ sessionId: "no-such-session", turnId: "t1" }, "x1"), "unknown_session");
    await expectCode(fixture.client.rewind({ sessionId: "bad", turnId: "t9" }), "unknown_turn");
    await expectCode(fixture.client.fork({ sessionId: "bad", turnId: "t9" }, "x2"), "unknown_turn");
    // Rewinding past the start of a forked session: the turn it was forked at is not one of its own.
    await fixture.client.fork({ sessionId: "bad", turnId: "t1" }, "bad-fork");
    await expectCode(fixture.client.rewind({ sessionId: "bad-fork", turnId: "t1" }), "unknown_turn");
    // A turn a rewind took out of the history cannot be gone back to.
    await expectCode(fixture.client.rewind({ sessionId: "bad", turnId: "t2" }), "turn_not_in_history");
    await expectCode(fixture.client.fork({ sessionId: "bad", turnId: "t2" }, "x3"), "turn_not_in_history");
    await expectCode(fixture.client.fork({ sessionId: "bad", turnId: "t1" }, "bad"), "session_exists");
    await expectCode(fixture.client.fork({ sessionId: "bad", turnId: "t1" }, "bad-fork"), "session_exists");
    await expectCode(fixture.client.fork({ sessionId: "bad", turnId: "t1" }, ""), "invalid_input");
    await expectCode(fixture.client.listSessions({ limit: 0 }), "invalid_input");
    await expectCode(fixture.client.listSessions({ after: "not-a-cursor" }), "invalid_input");
    await expectCode(fixture.client.labelTurn({ sessionId: "bad", turnId: "t9" }, "x"), "unknown_turn");
    await expectCode(fixture.client.labelTurn({ sessionId: "bad", turnId: "t1" }, "x".repeat(201)), "invalid_input");
    await expectCode(
      fixture.client.start({ sessionId: "bad", turnId: "t3", userMessage: { text: "hi" }, label: 7 as never }),
      "invalid_input",
    );

    // Nothing was written by any of them: one more session (the good fork), no stray ones, the same history.
    const after = (await fixture.client.listSessions({ limit: 500 })).sessions.map((s) => s.sessionId);
    expect(after).toHaveLength(sessionsBefore + 1);
    for (const stray of ["x1", "x2", "x3", "no-such-session"]) expect(after).not.toContain(stray);
    expect(shape(await fixture.client.readHistory("bad"))).toEqual(["user:t1?", "assistant:ok"]);
    expect(await fixture.client.listTurns("bad")).toHaveLength(2);
  }, 60_000);

  it("a start that died between queueing and recording its turn leaves a turn that runs and a session that can be rewound", async () => {
    await turn("died", "t1");
    // A start that died right after queueing: the turn is queued, its row not written.
    const dbos = await DBOSClient.create({ systemDatabaseUrl: fixture.postgres.url });
    const request: DurableTurnRequest = { sessionId: "died", turnId: "t2", userMessage: { text: "t2?" } };
    try {
      await dbos.enqueue(
        {
          queueName: DEFAULT_QUEUE_NAME,
          workflowName: TURN_WORKFLOW_NAME,
          workflowID: turnRef(request).workflowId,
          queuePartitionKey: "died",
          appVersion: DEFAULT_APP_VERSION,
        },
        request,
      );
    } finally {
      await dbos.destroy();
    }
    await waitFor("the queued turn listed", async () =>
      (await fixture.client.listTurns("died")).some((t) => t.turnId === "t2"),
    );
    expect(await fixture.client.outcome({ sessionId: "died", turnId: "t2" })).toMatchObject({ kind: "completed" });
    expect((await fixture.client.listTurns("died")).map((t) => [t.turnId, t.state])).toEqual([
      ["t1", "finished"],
      ["t2", "finished"],
    ]);
    // A row without a workflow (what a start that died after recording, before queueing, left before): not busy.
    const db = new pg.Client({ connectionString: fixture.postgres.url });
    await db.connect();
    try {
      await db.query(`INSERT INTO "${DEFAULT_SCHEMA}".turns (turn_key, session_id, turn_id) VALUES ($1, $2, $3)`, [
        turnRef({ sessionId: "died", turnId: "t3" }).workflowId,
        "died",
        "t3",
      ]);
    } finally {
      await db.end();
    }
    await fixture.client.rewind({ sessionId: "died", turnId: "t1" });
    expect(shape(await fixture.client.readHistory("died"))).toEqual(["user:t1?", "assistant:ok"]);
  }, 60_000);

  it("a turn queued by a start that died before recording it is known to every call before a worker runs it", async () => {
    // Queued for an application version no worker runs, so it stays queued and unrecorded until a call finds it.
    const request: DurableTurnRequest = { sessionId: "unrecorded", turnId: "t1", userMessage: { text: "t1?" } };
    await enqueueForNoWorker(request);
    expect(await fixture.client.status(request)).toEqual({ state: "queued" });
    expect(await fixture.client.steer(request, { text: "and this" })).toEqual({ accepted: true });
    expect((await fixture.client.listTurns("unrecorded")).map((t) => [t.turnId, t.state])).toEqual([["t1", "queued"]]);
    // Still queued, an aborted turn is taken out of the queue and ended at once: its intake is closed.
    await fixture.client.abort(request);
    expect(await fixture.client.steer(request, { text: "too late" })).toEqual({ accepted: false, reason: "closed" });
    expect(await fixture.client.outcome(request)).toMatchObject({ kind: "aborted" });
  });

  it("a turn aborted while queued after a rewind ends where the rewound history ends: a fork or rewind at it holds no later turn", async () => {
    await turn("queued-after-rewind", "t0");
    await turn("queued-after-rewind", "t1");
    await fixture.client.rewind({ sessionId: "queued-after-rewind", turnId: "t0" });
    // Queued for an application version no worker runs, then aborted there: it ends without running.
    const request: DurableTurnRequest = {
      sessionId: "queued-after-rewind",
      turnId: "t2",
      userMessage: { text: "t2?" },
    };
    await enqueueForNoWorker(request);
    await fixture.client.abort(request);
    expect(await fixture.client.outcome(request)).toMatchObject({ kind: "aborted" });
    await turn("queued-after-rewind", "t3");
    // The history as t2 left it is t0's (t1 was rewound away, t3 came after): before, it ended where t1 had ended.
    await fixture.client.fork(request, "queued-after-rewind-fork");
    expect(shape(await fixture.client.readHistory("queued-after-rewind-fork"))).toEqual(["user:t0?", "assistant:ok"]);
    await fixture.client.rewind(request);
    expect(shape(await fixture.client.readHistory("queued-after-rewind"))).toEqual(["user:t0?", "assistant:ok"]);
  });

  it("a turn aborted while queued behind a running one is cut after that one: a fork or rewind at it holds the turn before it", async () => {
    const running = await turn("queued-behind", "t1", { waiting: true });
    await asked(running);
    const queued = await fixture.client.start({
      sessionId: "queued-behind",
      turnId: "t2",
      userMessage: { text: "t2?" },
      metadata: { scenario: "quick" },
    });
    await fixture.client.abort(queued);
    expect(await fixture.client.outcome(queued)).toMatchObject({ kind: "aborted" });
    // Not yet: the turn before it has not finished.
    await expectCode(fixture.client.fork(queued, "queued-behind-early"), "turn_not_finished");
    await approve(running);
    const left = shape(await fixture.client.readHistory("queued-behind"));
    expect(left).toHaveLength(4);
    // Before, its history ended where the session's last finished turn had ended when it was aborted: nowhere (0).
    await fixture.client.fork(queued, "queued-behind-fork");
    expect(shape(await fixture.client.readHistory("queued-behind-fork"))).toEqual(left);
    await fixture.client.rewind(queued);
    expect(shape(await fixture.client.readHistory("queued-behind"))).toEqual(left);
  });
});
