/*
 * The writers of a durable turn when the database is away for a while (no
 * Postgres here: a log and a history store that fail a number of writes,
 * and a virtual clock for the retries). A write that fails for good keeps
 * its events (or history change) queued, in order: the next write or the
 * end of the turn writes them, the terminal status last. Before, the
 * writer dropped that batch and every later one, the terminal status
 * included, and the turn's log ended without it; and a history change taken
 * after one that failed for good made the history writer's flush spin
 * forever (the last test then hangs the run).
 */
import type { AgentMessage } from "@turnkit/agent-loop";
import { createRuntimeEvent, type RuntimeEvent } from "@turnkit/protocol";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { EventLog } from "../src/store/event-log.js";
import type { SessionHistory } from "../src/store/session-history.js";
import { TurnClaim } from "../src/store/turn-claim.js";
import { DurableEventWriter } from "../src/turn/durable-event-writer.js";
import { HistoryWriter } from "../src/turn/history-writer.js";

/** Attempts of one write before the writers give up for now (the writers' own constant). */
const ATTEMPTS = 5;

beforeEach(() => {
  // Only the retry delays are virtual; the writer's setImmediate stays real.
  vi.useFakeTimers({ toFake: ["setTimeout"] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** A store whose first `failures` calls reject (the database is away), then work. */
function failingFirst(failures: number) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    next(): void {
      calls++;
      if (calls <= failures) throw new Error(`connection refused (call ${calls})`);
    },
  };
}

function fakeLog(failures: number) {
  const stored: RuntimeEvent[] = [];
  const gate = failingFirst(failures);
  const log = {
    append: async (_claim: TurnClaim, events: readonly RuntimeEvent[]) => {
      gate.next();
      stored.push(...events);
    },
  } as unknown as EventLog;
  return { log, stored, gate };
}

function fakeHistory(failures: number) {
  const stored: AgentMessage[] = [];
  const gate = failingFirst(failures);
  const history = {
    append: async (
      _claim: TurnClaim,
      _sessionId: string,
      { position }: { position: number },
      messages: readonly AgentMessage[],
    ) => {
      gate.next();
      messages.forEach((message, i) => {
        stored[position + i] = message;
      });
      return [...messages];
    },
    replace: async () => gate.next(),
  } as unknown as SessionHistory;
  return { history, stored, gate };
}

function event(type: "session.status" | "debug.trace", payload: object): RuntimeEvent {
  return createRuntimeEvent({
    eventId: "pending",
    sessionId: "s",
    turnId: "t",
    seq: 0,
    type,
    payload: payload as never,
  }) as RuntimeEvent;
}

const trace = (message: string) => event("debug.trace", { phase: "loop", level: "debug", message });
const user = (text: string) => ({ role: "user", content: text, timestamp: 1 }) as AgentMessage;

/** Lets the writers' background loops run through every retry delay. */
async function passRetries(): Promise<void> {
  for (let i = 0; i < 20; i++) await vi.advanceTimersByTimeAsync(1_000);
}

/** How `flush` ended once the retries passed: "flushed", its error, or "pending" (never awaited: the clock is virtual). */
async function flushed(writer: DurableEventWriter): Promise<unknown> {
  const ended = writer.flush().then(
    () => "flushed",
    (error: unknown) => error,
  );
  await passRetries();
  return Promise.race([ended, Promise.resolve("pending")]);
}

describe("the durable writers while the database is away", () => {
  it("a batch the log refused for good is written with the next one, in order, and the terminal status last", async () => {
    const { log, stored, gate } = fakeLog(ATTEMPTS);
    const claim = new TurnClaim("turn:s:t", "token");
    const writer = new DurableEventWriter(log, new HistoryWriter(fakeHistory(0).history, claim, "s"), claim, {
      sessionId: "s",
      turnId: "t",
    });
    writer.push(event("session.status", { status: "running" }));
    writer.push(trace("one"));
    await passRetries();
    expect([gate.calls, stored.length]).toEqual([ATTEMPTS, 0]);

    writer.push(trace("two"));
    writer.push(event("session.status", { status: "completed" }));
    writer.end();
    expect(await flushed(writer)).toBe("flushed");
    expect(stored.map((e) => [e.seq, e.type])).toEqual([
      [1, "session.status"],
      [2, "debug.trace"],
      [3, "debug.trace"],
      [4, "session.status"],
    ]);
    expect(stored.at(-1)).toMatchObject({ payload: { status: "completed" } });
  });

  it("the end of the turn fails loudly (log_write) when the log still cannot be written, and drops nothing", async () => {
    const { log, stored } = fakeLog(Number.POSITIVE_INFINITY);
    const claim = new TurnClaim("turn:s:t", "token");
    const writer = new DurableEventWriter(log, new HistoryWriter(fakeHistory(0).history, claim, "s"), claim, {
      sessionId: "s",
      turnId: "t",
    });
    writer.push(trace("one"));
    writer.push(event("session.status", { status: "completed" }));
    writer.end();
    expect(await flushed(writer)).toMatchObject({ name: "DurableTurnError", code: "log_write" });
    expect(stored).toEqual([]);
  });

  it("a history change the store refused for good is stored before the next one, and the log announces both", async () => {
    const claim = new TurnClaim("turn:s:t", "token");
    const store = fakeHistory(ATTEMPTS);
    const history = new HistoryWriter(store.history, claim, "s");
    const { log, stored } = fakeLog(0);
    const writer = new DurableEventWriter(log, history, claim, { sessionId: "s", turnId: "t" });
    const first = [user("first")];
    history.take({ reason: "messageDelta", messages: first } as never);
    await passRetries();
    expect(store.stored).toEqual([]);

    const second = [user("second")];
    history.take({ reason: "messageDelta", messages: second } as never);
    writer.push(event("session.status", { status: "running" }));
    writer.push(createPersisted(first));
    writer.push(createPersisted(second));
    writer.push(event("session.status", { status: "completed" }));
    writer.end();
    expect(await flushed(writer)).toBe("flushed");
    expect(store.stored).toEqual([...first, ...second]);
    expect(stored.map((e) => e.type)).toEqual([
      "session.status",
      "message.persisted",
      "message.persisted",
      "session.status",
    ]);
  });
});

describe("what message.persisted announces", () => {
  it("the k-th announcement of the turn carries what the store holds for the k-th change, whatever list it was handed", async () => {
    const claim = new TurnClaim("turn:s:t", "token");
    // A replay: the store already holds an earlier execution's messages (their own timestamps) there, and hands those back.
    const earlier = (message: AgentMessage) => ({ ...message, timestamp: 42 }) as AgentMessage;
    const history = new HistoryWriter(
      {
        append: async (_claim: TurnClaim, _sessionId: string, _at: unknown, messages: readonly AgentMessage[]) =>
          messages.map(earlier),
      } as unknown as SessionHistory,
      claim,
      "s",
    );
    const { log, stored } = fakeLog(0);
    const writer = new DurableEventWriter(log, history, claim, { sessionId: "s", turnId: "t" });
    const first = [user("first")];
    const second = [user("second")];
    history.take({ reason: "messageDelta", messages: first } as never);
    history.take({ reason: "messageDelta", messages: second } as never);
    // Each announced with a list of its own (a copy, as a hook or a wrapper of the runner may make), and a sub-agent
    // turn's announcement between them (its history is not the session's).
    writer.push(createPersisted(structuredClone(first)));
    writer.push({
      ...createPersisted([user("the child's")]),
      origin: { toolCallId: "c1", path: [{ toolCallId: "c1", agent: "explore" }], turnId: "t/c1", seq: 1 },
    } as RuntimeEvent);
    writer.push(createPersisted(structuredClone(second)));
    await writer.flush();
    expect(stored.map((e) => (e.payload as { messages: AgentMessage[] }).messages)).toEqual([
      first.map(earlier),
      [user("the child's")],
      second.map(earlier),
    ]);
  });
});

describe("the events of sub-agent turns in a durable log", () => {
  it("are numbered in their own logged sequence, and what the durable layer logs for one carries its origin", async () => {
    const { log, stored } = fakeLog(0);
    const claim = new TurnClaim("turn:s:t", "token");
    const writer = new DurableEventWriter(log, new HistoryWriter(fakeHistory(0).history, claim, "s"), claim, {
      sessionId: "s",
      turnId: "t",
    });
    const step = { toolCallId: "c1", agent: "explore" };
    const fromChild = (e: RuntimeEvent, seq: number): RuntimeEvent => ({
      ...e,
      origin: { toolCallId: "c1", path: [step], turnId: "t/c1", seq },
    });
    writer.push(event("session.status", { status: "running" }));
    writer.push(fromChild(event("session.status", { status: "running" }), 1));
    // The child's progress updates (its seq 2 and 3) are not logged: their number depends on timing.
    writer.push(
      fromChild(event("debug.trace", { phase: "tool", level: "debug", message: "tool_execution_update" }), 2),
    );
    writer.push(
      fromChild(event("debug.trace", { phase: "tool", level: "debug", message: "tool_execution_update" }), 3),
    );
    writer.push(fromChild(trace("after the updates"), 4));
    writer.emit("debug.trace", { phase: "durable.approval", level: "info", message: "approval approved" }, "t/c1");
    writer.emit("debug.trace", { phase: "durable.steering", level: "info", message: "steering received" });
    writer.push(fromChild(event("session.status", { status: "completed" }), 5));
    writer.push(event("session.status", { status: "completed" }));
    writer.end();
    await writer.flush();
    const said = (e: RuntimeEvent) => e.payload as { status?: string; message?: string };
    expect(stored.map((e) => [e.seq, said(e).status ?? said(e).message, e.origin?.seq])).toEqual([
      [1, "running", undefined],
      [2, "running", 1],
      [3, "after the updates", 2],
      [4, "approval approved", 3],
      [5, "steering received", undefined],
      [6, "completed", 4],
      [7, "completed", undefined],
    ]);
    expect(stored[3]!.origin).toEqual({ toolCallId: "c1", path: [step], turnId: "t/c1", seq: 3 });
  });
});

describe("a resume", () => {
  it("counts the resumes of executions that died before recording theirs, so a request sent again gets a new id", async () => {
    const { log, stored } = fakeLog(0);
    const claim = new TurnClaim("turn:s:t", "token");
    const writer = new DurableEventWriter(log, new HistoryWriter(fakeHistory(0).history, claim, "s"), claim, {
      sessionId: "s",
      turnId: "t",
    });
    writer.push(event("session.status", { status: "running" }));
    // Events 2..9: an interrupted attempt, a resume notice of an execution that died too, and its own attempt.
    writer.applyResume({ fromSeq: 2, toSeq: 9, earlierResumes: 1 });
    // The third attempt's message id is `.r2`: `.r1` is the attempt the earlier resume made.
    expect(writer.resumes).toBe(2);
    await writer.flush();
    expect(stored.map((e) => e.seq)).toEqual([1, 10]);
  });
});

function createPersisted(messages: AgentMessage[]): RuntimeEvent {
  return createRuntimeEvent({
    eventId: "pending",
    sessionId: "s",
    turnId: "t",
    seq: 0,
    type: "message.persisted",
    payload: { reason: "messageDelta", messages } as never,
  }) as RuntimeEvent;
}
