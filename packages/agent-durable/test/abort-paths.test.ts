/*
 * The abort paths of a durable turn, with the worker in the test process (its
 * buildTurn is a closure here, so a test can hold a hook or a tool at a chosen
 * point): a slow database during an abort, a replay after an abort, a host
 * history hook that fails the turn, steering that meets an abort; and the
 * event log's own guards (one ending, one event per seq).
 */
import type { Context } from "@mariozechner/pi-ai";
import { Type } from "@sinclair/typebox";
import { defineRuntimeTool, type TurnInputMessage } from "@turnkit/agent-core";
import {
  assertToolCallsAnswered,
  createScriptedModel,
  type Deferred,
  deferred,
  response,
  toolCall,
} from "@turnkit/agent-core/testing";
import type { AgentMessage } from "@turnkit/agent-loop";
import { createRuntimeEvent, type RuntimeEvent, type RuntimeEventPayloadMap } from "@turnkit/protocol";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { type BuildDurableTurn, type DurableTurnRef } from "../src/index.js";
import { EventLog } from "../src/store/event-log.js";
import { SessionHistory } from "../src/store/session-history.js";
import { DurableEventWriter } from "../src/turn/durable-event-writer.js";
import { HistoryWriter } from "../src/turn/history-writer.js";
import { claimForTest } from "./support/test-claim.js";
import { assertLogInvariants } from "./support/log-assertions.js";
import { useInProcessWorker } from "./support/in-process-worker.js";
import { waitFor } from "./support/worker-cluster.js";

const WORKER_ID = "in-test";

/** What a test controls in the turns of this file, by turn id. */
const started = new Map<string, number>();
const slowHistoryHooks = new Set<string>();
const stepEndGates = new Map<string, Deferred<void>>();

function lastMessage(context: Context) {
  return context.messages[context.messages.length - 1];
}

/** The turns of this file: `calls` asks for three parallel calls (two wait for the abort, one ignores it); anything else answers "ok". */
const buildTurn: BuildDurableTurn = (request) => {
  const scenario = String(request.metadata?.scenario);
  const waitForAbort = defineRuntimeTool({
    name: "wait_for_abort",
    description: "Runs until the turn is aborted",
    parameters: Type.Object({ n: Type.Number() }),
    executionMode: "parallel",
    execute: async (_ctx, _input, signal) => {
      started.set(request.turnId, (started.get(request.turnId) ?? 0) + 1);
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      return { content: [{ type: "text", text: "stopped by the abort" }], isError: true };
    },
  });
  const ignoreAbort = defineRuntimeTool({
    name: "ignore_abort",
    description: "Runs for ten minutes whatever happens",
    parameters: Type.Object({}),
    executionMode: "parallel",
    execute: async () => {
      started.set(request.turnId, (started.get(request.turnId) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, 600_000).unref());
      return { content: [{ type: "text", text: "finished" }] };
    },
  });
  const streamFn: NonNullable<ReturnType<typeof createScriptedModel>["streamFn"]> = (model, context, options) => {
    const last = lastMessage(context);
    const entry =
      last?.role === "toolResult"
        ? response("after the calls")
        : scenario === "calls"
          ? response([
              toolCall("wait_for_abort", { n: 0 }, { id: `${request.turnId}-a` }),
              toolCall("ignore_abort", {}, { id: `${request.turnId}-b` }),
              toolCall("wait_for_abort", { n: 2 }, { id: `${request.turnId}-c` }),
            ])
          : response("ok");
    return createScriptedModel([entry]).streamFn(model, context, options);
  };
  return {
    systemPrompt: "You are a test assistant.",
    llm: { model: createScriptedModel([]).model, streamFn },
    llmRetry: false,
    tools: [waitForAbort, ignoreAbort],
    hooks: {
      // Slow once the test says so (after its abort): past the runner's abort grace.
      onHistoryChangedHook: async (change) => {
        if (slowHistoryHooks.has(request.turnId)) await new Promise((resolve) => setTimeout(resolve, 400));
        if (scenario === "history-fails" && change.messages.some((m) => m.role === "assistant"))
          throw new Error("the audit store is down");
      },
      onStepEndHook: async () => {
        await stepEndGates.get(request.turnId)?.promise;
        // Past the runner's abort grace, which a failed history hook starts.
        if (scenario === "history-fails") await new Promise((resolve) => setTimeout(resolve, 400));
      },
    },
  };
};

const fixture = useInProcessWorker({ workerId: WORKER_ID, concurrency: 4, buildTurn });

async function storedHistory(sessionId: string): Promise<AgentMessage[]> {
  const { rows } = await fixture.db.query(
    "SELECT message FROM turnkit_durable.session_messages WHERE session_id = $1 ORDER BY position",
    [sessionId],
  );
  return rows.map((row: { message: AgentMessage }) => row.message);
}

/** The messages the log announced as persisted, in order (each change a delta: these turns do not compact). */
function announced(events: RuntimeEvent[]): unknown[] {
  return events.flatMap((e) => (e.type === "message.persisted" ? e.payload.messages : []));
}

async function startCalls(sessionId: string, turnId: string): Promise<DurableTurnRef> {
  const turn = await fixture.worker.client.start({
    sessionId,
    turnId,
    userMessage: { text: "run them" },
    metadata: { scenario: "calls" },
  });
  await waitFor("the three calls started", () => started.get(turnId) === 3);
  return turn;
}

describe("a slow database during an abort", () => {
  it("the stored history answers every call, and holds exactly what the log announced", async () => {
    const turn = await startCalls("s-slow", "slow");
    // Another transaction holds the session history for 1.5 s, right across the abort.
    const blocker = new pg.Client({ connectionString: fixture.postgres.url });
    await blocker.connect();
    try {
      await blocker.query("BEGIN");
      await blocker.query("LOCK TABLE turnkit_durable.session_messages IN SHARE MODE");
      await fixture.worker.client.abort(turn);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await blocker.query("COMMIT");
    } finally {
      await blocker.end();
    }
    const outcome = await fixture.worker.client.outcome(turn);
    expect(outcome).toMatchObject({ kind: "aborted" });
    const events = await fixture.worker.client.readEvents(turn);
    assertLogInvariants(events);
    const history = await storedHistory("s-slow");
    expect(assertToolCallsAnswered(history)).toBe(3);
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "toolResult", "toolResult"]);
    expect(history).toEqual(announced(events));
    // The call that ignored the abort was given up on after the grace, and says it may have taken effect.
    const results = history.flatMap((m) => (m.role === "toolResult" ? [m.content[0]] : []));
    expect(results).toEqual([
      { type: "text", text: "stopped by the abort" },
      { type: "text", text: expect.stringMatching(/did not stop within the abort grace/) },
      { type: "text", text: "stopped by the abort" },
    ]);
  }, 60_000);
});

describe("a replay after an abort", () => {
  it("takes the same path: it logs nothing more, and the log keeps its one ending", async () => {
    const turn = await startCalls("s-replay", "replay");
    // The host's history hook turns slow past the runner's abort grace once the turn is aborted.
    slowHistoryHooks.add("replay");
    await fixture.worker.client.abort(turn);
    const outcome = await fixture.worker.client.outcome(turn);
    expect(outcome).toMatchObject({ kind: "aborted" });
    const before = await fixture.worker.client.readEvents(turn);
    assertLogInvariants(before);

    // As if the worker died after the turn ended but before DBOS marked its workflow done: the
    // relaunched worker runs it again from the top, every step from its record.
    await fixture.replay(turn);
    const after = await fixture.worker.client.readEvents(turn);
    assertLogInvariants(after);
    expect(after).toEqual(before);
    expect(await fixture.worker.client.outcome(turn)).toEqual(outcome);
    expect(await storedHistory("s-replay")).toEqual(announced(before));
  }, 90_000);
});

describe("a host history hook that fails the turn", () => {
  it("stops the turn's durable steps: none is given up on after the grace the failure starts", async () => {
    const turn = await fixture.worker.client.start({
      sessionId: "s-hook-fails",
      turnId: "hook-fails",
      userMessage: { text: "hi" },
      metadata: { scenario: "history-fails" },
    });
    const outcome = await fixture.worker.client.outcome(turn);
    expect(outcome).toMatchObject({ kind: "failed", error: { code: "hook" } });
    const events = await fixture.worker.client.readEvents(turn);
    assertLogInvariants(events);
    const abandoned = events.filter((e) => e.type === "debug.trace" && /abort grace/.test(e.payload.message));
    expect(abandoned).toEqual([]);
    // The durable layer stored the history all the same: the answer, then the response the stopped run records.
    const history = await storedHistory("s-hook-fails");
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "assistant"]);
  }, 60_000);
});

describe("steering that meets an abort", () => {
  it("is refused once the abort is requested, and after the turn ended", async () => {
    // The step end waits for the test, so the turn cannot end between the abort and the steer.
    const gate = deferred<void>();
    stepEndGates.set("refuse", gate);
    const turn = await fixture.worker.client.start({
      sessionId: "s-refuse",
      turnId: "refuse",
      userMessage: { text: "hi" },
      metadata: { scenario: "quick" },
    });
    await waitFor("the step end", async () =>
      (await fixture.worker.client.readEvents(turn)).some(
        (e) => e.type === "stream.resp" && e.payload.chunk.kind === "finish",
      ),
    );
    await fixture.worker.client.abort(turn);
    expect(await fixture.worker.client.steer(turn, { text: "too late" })).toEqual({
      accepted: false,
      reason: "aborted",
    });
    gate.resolve();
    expect(await fixture.worker.client.outcome(turn)).toMatchObject({ kind: "aborted" });
    expect(await fixture.worker.client.steer(turn, { text: "later still" })).toEqual({
      accepted: false,
      reason: "closed",
    });
  }, 60_000);

  it("a message accepted before the abort is handed back in the outcome and the terminal status", async () => {
    const turn = await startCalls("s-hand-back", "hand-back");
    const message: TurnInputMessage = { text: "steer: also the left folder" };
    expect(await fixture.worker.client.steer(turn, message)).toEqual({ accepted: true });
    await fixture.worker.client.abort(turn);
    const outcome = await fixture.worker.client.outcome(turn);
    expect(outcome).toMatchObject({ kind: "aborted" });
    expect(outcome.undeliveredMessages?.map((m) => (m as { content?: unknown }).content)).toEqual([
      [{ type: "text", text: message.text }],
    ]);
    const events = await fixture.worker.client.readEvents(turn);
    assertLogInvariants(events);
    expect(events.at(-1)?.payload).toMatchObject({
      status: "aborted",
      undeliveredMessages: outcome.undeliveredMessages,
    });
  }, 60_000);

  it("a message a poll finds together with the abort is handed back, never dropped", async () => {
    // The step end waits for the test: the message and the abort both arrive before the next poll.
    const gate = deferred<void>();
    stepEndGates.set("poll-abort", gate);
    const turn = await fixture.worker.client.start({
      sessionId: "s-poll-abort",
      turnId: "poll-abort",
      userMessage: { text: "hi" },
      metadata: { scenario: "quick" },
    });
    await waitFor("the step end", async () =>
      (await fixture.worker.client.readEvents(turn)).some(
        (e) => e.type === "stream.resp" && e.payload.chunk.kind === "finish",
      ),
    );
    expect(await fixture.worker.client.steer(turn, { text: "steer: one more thing" })).toEqual({ accepted: true });
    await fixture.worker.client.abort(turn);
    gate.resolve();
    const outcome = await fixture.worker.client.outcome(turn);
    expect(outcome).toMatchObject({ kind: "aborted" });
    const delivered = (await storedHistory("s-poll-abort")).some(
      (m) => m.role === "user" && JSON.stringify(m.content).includes("one more thing"),
    );
    const handedBack = (outcome.undeliveredMessages ?? []).some((m) => JSON.stringify(m).includes("one more thing"));
    expect([delivered, handedBack]).toEqual([false, true]);
  }, 60_000);
});

describe("an abort that cannot be written whole", () => {
  it("stores nothing: its request and its notice commit together or not at all", async () => {
    const turn = await startCalls("s-half", "half");
    // The notice cannot be stored (as when the database refuses the second write, or the process dies before it).
    await fixture.db.query(`
      CREATE FUNCTION pg_temp.refuse_notice() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'the notice cannot be stored'; END $$ LANGUAGE plpgsql;
      CREATE TRIGGER refuse_notice BEFORE INSERT ON dbos.notifications FOR EACH ROW
        WHEN (NEW.destination_uuid = '${turn.workflowId}') EXECUTE FUNCTION pg_temp.refuse_notice();
    `);
    try {
      await expect(fixture.worker.client.abort(turn)).rejects.toThrow(/the notice cannot be stored/);
    } finally {
      await fixture.db.query("DROP TRIGGER refuse_notice ON dbos.notifications");
    }
    const { rows } = await fixture.db.query("SELECT abort_requested FROM turnkit_durable.turns WHERE turn_key = $1", [
      turn.workflowId,
    ]);
    expect(rows).toEqual([{ abort_requested: false }]);
    // No half abort for the worker to find: the turn runs on, and an abort made whole ends it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await fixture.worker.client.status(turn)).toMatchObject({ state: "running" });
    await fixture.worker.client.abort(turn);
    expect(await fixture.worker.client.outcome(turn)).toMatchObject({ kind: "aborted" });
  }, 60_000);
});

describe("the event log", () => {
  const status = (seq: number, payload: RuntimeEventPayloadMap["session.status"]) =>
    createRuntimeEvent({
      eventId: `log#${seq}`,
      sessionId: "s-log",
      turnId: "log",
      seq,
      type: "session.status",
      payload,
    });
  const trace = (seq: number) =>
    createRuntimeEvent({
      eventId: `log#${seq}`,
      sessionId: "s-log",
      turnId: "log",
      seq,
      type: "debug.trace",
      payload: { phase: "loop", level: "debug", message: "agent_end" },
    });

  it("stores nothing after a turn's terminal status, and one terminal status even when two writers race", async () => {
    const pool = new pg.Pool({ connectionString: fixture.postgres.url, max: 4 });
    try {
      const log = new EventLog(pool, "turnkit_durable");
      const [log1, log2] = [await claimForTest(pool, "log-1"), await claimForTest(pool, "log-2")];
      await log.append(log1, [status(1, { status: "running" }), trace(2), status(3, { status: "aborted" })]);
      // A replay that took another path numbers its ending later: refused, with everything after the first ending.
      await log.append(log1, [trace(4), status(5, { status: "aborted" })]);
      expect((await log.read("log-1", 0, 100)).map((e) => e.seq)).toEqual([1, 2, 3]);
      expect((await log.terminal("log-1"))?.seq).toBe(3);

      // Two writers end the turn at once, each after the last stored event (a writer that skipped one is refused
      // as a gap, see the next test): one ends it at seq 2, the other logs seq 2 and ends at seq 3. Whichever is
      // stored first, or when they overlap, the log holds one of them whole and one terminal status, no error.
      await log.append(log2, [status(1, { status: "running" })]);
      await Promise.all([
        log.append(log2, [status(2, { status: "completed" })]),
        log.append(log2, [trace(2), status(3, { status: "aborted" })]),
      ]);
      const raced = await log.read("log-2", 0, 100);
      expect(raced.map((e) => e.seq)).toEqual(raced.length === 2 ? [1, 2] : [1, 2, 3]);
      expect(raced.filter((e) => e.type === "session.status" && e.payload.status !== "running")).toHaveLength(1);
    } finally {
      await pool.end();
    }
  });

  it("stores no event after one it lacks, nor a message after a position the history lacks, and hands the turn back", async () => {
    const pool = new pg.Pool({ connectionString: fixture.postgres.url, max: 4 });
    const message = (text: string) => ({ role: "user", content: text, timestamp: 1 }) as AgentMessage;
    try {
      const claim = await claimForTest(pool, "log-gap");
      const handedBack: { turnKey: string; token: string; reason: string }[] = [];
      const handBack = async (execution: { turnKey: string; token: string }, error: unknown) => {
        handedBack.push({ turnKey: execution.turnKey, token: execution.token, reason: String(error) });
        return new Error("handed back");
      };
      const log = new EventLog(pool, "turnkit_durable", { handBack });
      await log.append(claim, [status(1, { status: "running" }), trace(2)]);
      // Seq 3 was written by the execution and lost by a crash of the server: seq 4 and on are refused, whole.
      await expect(log.append(claim, [trace(4), trace(5)])).rejects.toThrow("handed back");
      expect(handedBack).toEqual([
        { turnKey: "log-gap", token: claim.token, reason: expect.stringContaining("lacks event 3") },
      ]);
      expect((await log.read("log-gap", 0, 100)).map((e) => e.seq)).toEqual([1, 2]);
      // Without a way to hand the turn back, the write fails as the log's.
      await expect(new EventLog(pool, "turnkit_durable").append(claim, [trace(4)])).rejects.toMatchObject({
        code: "log_write",
      });
      // A replay writes from its first event again, the lost one included, and goes on.
      await log.append(claim, [status(1, { status: "running" }), trace(2), trace(3)]);
      await log.append(claim, [trace(4)]);
      expect((await log.read("log-gap", 0, 100)).map((e) => e.seq)).toEqual([1, 2, 3, 4]);

      // The session history likewise, from where the turn started (position 1: a message of an earlier turn holds 0).
      const history = new SessionHistory(pool, "turnkit_durable", { handBack });
      const at = (position: number) => ({ position, replacementsBefore: 0, after: 1 });
      await pool.query(
        `INSERT INTO turnkit_durable.session_messages (session_id, position, turn_key, message) VALUES ('s-gap', 0, 'earlier', '{}')`,
      );
      await history.append(claim, "s-gap", at(1), [message("one")]);
      await expect(history.append(claim, "s-gap", at(3), [message("three")])).rejects.toThrow("handed back");
      expect(handedBack.at(-1)?.reason).toContain("lacks position 2");
      await expect(
        new SessionHistory(pool, "turnkit_durable").append(claim, "s-gap", at(3), [message("three")]),
      ).rejects.toMatchObject({ code: "history_write" });
      expect((await history.load("s-gap")).length).toBe(2);
      await history.append(claim, "s-gap", at(2), [message("two"), message("three")]);
      expect((await history.load("s-gap")).slice(1)).toEqual([message("one"), message("two"), message("three")]);
    } finally {
      await pool.end();
    }
  });

  it("keeps an event written again with other timing, and refuses another event under a stored seq (log_conflict)", async () => {
    const pool = new pg.Pool({ connectionString: fixture.postgres.url, max: 4 });
    const toolChunk = (seq: number, durationMs: number) =>
      createRuntimeEvent({
        eventId: `log#${seq}`,
        sessionId: "s-log",
        turnId: "log",
        seq,
        type: "stream.resp",
        payload: {
          messageId: "log#m1",
          chunkIndex: 0,
          chunk: { kind: "tool_call", toolCallId: "c1", toolName: "t", status: "finished", durationMs },
        },
      });
    try {
      const log = new EventLog(pool, "turnkit_durable");
      const claim = await claimForTest(pool, "log-3");
      await log.append(claim, [status(1, { status: "running" }), trace(2), toolChunk(3, 10)]);
      // A replay writes the same events again, the call timed anew, and goes on after them.
      await log.append(claim, [status(1, { status: "running" }), trace(2), toolChunk(3, 99), trace(4)]);
      const logged = await log.read("log-3", 0, 100);
      expect(logged.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
      expect(logged[2]).toEqual(toolChunk(3, 10));

      // An execution that diverged writes another event under seq 4: refused, named, and nothing after it stored.
      const diverged = log.append(claim, [status(4, { status: "aborted" }), trace(5)]);
      await expect(diverged).rejects.toMatchObject({ name: "DurableTurnError", code: "log_conflict" });
      await expect(diverged).rejects.toThrow(/"debug\.trace".* as event 4.*"session\.status"/);
      expect(await log.read("log-3", 0, 100)).toEqual(logged);

      // The turn's writer does not retry it as a failed write, and its flush fails with it.
      const history = new HistoryWriter(new SessionHistory(pool, "turnkit_durable"), claim, "s-log");
      const writer = new DurableEventWriter(log, history, claim, { sessionId: "s-log", turnId: "log" });
      writer.push(status(0, { status: "running" }));
      writer.push(createRuntimeEvent({ ...trace(0), payload: { phase: "other", level: "debug", message: "x" } }));
      const startedAt = Date.now();
      await expect(writer.flush()).rejects.toMatchObject({ code: "log_conflict" });
      expect(Date.now() - startedAt).toBeLessThan(1_000);
      expect(await log.read("log-3", 0, 100)).toEqual(logged);

      // Once the log ended it is whole (the turn's outcome is the one it ends with): a replay's writes are refused
      // unchecked, as every write after the ending is.
      await log.append(claim, [status(5, { status: "completed" })]);
      await log.append(claim, [trace(4), status(5, { status: "aborted" }), trace(6)]);
      expect(await log.read("log-3", 0, 100)).toEqual([...logged, status(5, { status: "completed" })]);
    } finally {
      await pool.end();
    }
  });
});
