/**
 * The invariant checkers the properties rely on reject what they claim to
 * reject: a property that passes only because its checker is blind proves
 * nothing. One broken run per checker, built by hand.
 */
import { describe, expect, it } from "vitest";
import type { AgentEvent, AgentMessage } from "@turnkit/agent-loop";
import {
  abortListenerCount,
  assistantMessage,
  createVirtualClock,
  probeGraceTimers,
  probeRealTimers,
  sequentialGraces,
  toolCall,
  toolResultMessage,
  userMessage,
} from "@turnkit/agent-loop/testing";
import { RUNTIME_EVENT_SCHEMA, type RuntimeEvent, type StreamChunk } from "@turnkit/protocol";
import { checkBlankSteeringLeftOut } from "../../src/invariants/blank-steering.js";
import { checkEventNumbering } from "../../src/invariants/event-numbering.js";
import { checkNoLeaks } from "../../src/invariants/leaks.js";
import { checkLoopEventGrammar, checkLoopTraceGrammar } from "../../src/invariants/loop-event-grammar.js";
import { checkPrototypesUnchanged, snapshotPrototypes } from "../../src/invariants/prototypes.js";
import { checkStreamChunks } from "../../src/invariants/stream-chunks.js";
import { checkSubAgentEvents } from "../../src/invariants/sub-agent-events.js";
import { checkProviderConversion, checkToolCallsAnswered } from "../../src/invariants/transcript-replayable.js";
import { checkAgentVisibleText, checkRunnerVisibleText } from "../../src/invariants/visible-text.js";
import type { TurnRunObservation } from "../../src/observe-turn.js";
import { driveUntilSettled } from "../../src/virtual-time.js";
import { ABORT_GRACE_MS } from "@turnkit/agent-loop/internal";

const user = userMessage("question", { timestamp: 1 });
const calling = assistantMessage([toolCall("alpha", {}, { id: "c1" }), toolCall("alpha", {}, { id: "c2" })], {
  timestamp: 2,
});
const result = (id: string) => toolResultMessage(id, "alpha", "done", { timestamp: 3 });
const answer = assistantMessage("answer", { timestamp: 4 });

function streamEvent(seq: number, messageId: string, chunk: StreamChunk): RuntimeEvent {
  return {
    schema: RUNTIME_EVENT_SCHEMA,
    eventId: `e${seq}`,
    sessionId: "s",
    turnId: "t",
    seq,
    type: "stream.resp",
    payload: { messageId, chunkIndex: seq, chunk },
  };
}

function trace(seq: number, message: string): RuntimeEvent {
  return {
    schema: RUNTIME_EVENT_SCHEMA,
    eventId: `e${seq}`,
    sessionId: "s",
    turnId: "t",
    seq,
    type: "debug.trace",
    payload: { phase: "loop", level: "debug", message },
  };
}

describe("invariant checkers reject broken runs", () => {
  it("loop event grammar: a run without agent_end, a tool result before its execution ended", () => {
    const start: AgentEvent[] = [{ type: "agent_start" }, { type: "turn_start" }];
    expect(() => checkLoopEventGrammar(start)).toThrow(/never emitted agent_end/);
    const early: AgentEvent[] = [
      ...start,
      { type: "tool_execution_start", toolCallId: "c1", toolName: "alpha", args: {} },
      { type: "message_start", message: result("c1") },
      { type: "message_end", message: result("c1") },
    ];
    expect(() => checkLoopEventGrammar(early)).toThrow(/before its tool_execution_end/);
    const lateUpdate: AgentEvent[] = [
      ...start,
      { type: "tool_execution_start", toolCallId: "c1", toolName: "alpha", args: {} },
      { type: "tool_execution_end", toolCallId: "c1", toolName: "alpha", result: {}, isError: false },
      { type: "tool_execution_update", toolCallId: "c1", toolName: "alpha", args: {}, partialResult: {} },
    ];
    expect(() => checkLoopEventGrammar(lateUpdate)).toThrow(/outside its execution/);
    expect(() =>
      checkLoopTraceGrammar([trace(1, "agent_start"), trace(2, "turn_start"), trace(3, "agent_end")]),
    ).toThrow(/turn is open/);
  });

  it("transcript: an unanswered call, a result answering nothing, a call pi-ai would have to repair", () => {
    expect(() => checkToolCallsAnswered([user, calling, result("c1"), answer], "t")).toThrow(/c2 .* 0 results/);
    expect(() => checkToolCallsAnswered([user, result("c9")], "t")).toThrow(/answers no call/);
    const interrupted: AgentMessage[] = [
      user,
      calling,
      result("c1"),
      userMessage("steer", { timestamp: 5 }),
      result("c2"),
      answer,
    ];
    expect(() => checkProviderConversion(interrupted as never, "t")).toThrow(/repair|does not follow/);
    expect(() =>
      checkProviderConversion([user, calling, result("c1"), result("c2"), answer] as never, "t"),
    ).not.toThrow();
  });

  it("visible text: text shown twice, text that differs from the kept message, a kept answer never shown", () => {
    const chunks = [
      streamEvent(1, "m1", { kind: "text", delta: "«r1» al" }),
      streamEvent(2, "m1", { kind: "text", delta: "«r1» alpha" }),
    ];
    expect(() => checkRunnerVisibleText(chunks, new Map([["r1", "«r1» alpha"]]), [])).toThrow(/mixes attempts/);
    const twice = [
      streamEvent(1, "m1", { kind: "text", delta: "«r1» alpha" }),
      streamEvent(2, "m2", { kind: "text", delta: "«r1» alpha" }),
    ];
    expect(() => checkRunnerVisibleText(twice, new Map([["r1", "«r1» alpha"]]), [])).toThrow(/two message ids/);
    // A kept response that ended normally (its text sent whole, at its block's end) that the host was never shown.
    const unshown = [streamEvent(1, "m1", { kind: "thinking", delta: "pondering" })];
    const kept = assistantMessage("«r1» alpha", { timestamp: 1 });
    expect(() => checkRunnerVisibleText(unshown, new Map([["r1", "«r1» alpha"]]), [kept])).toThrow(
      /the host was shown none of it/,
    );
    const shown = assistantMessage("«r1» alpha", { timestamp: 1 });
    const agentEvents: AgentEvent[] = [
      { type: "message_start", message: shown },
      {
        type: "message_update",
        message: shown,
        assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "«r1» al", partial: shown },
      },
      { type: "message_end", message: shown },
    ];
    expect(() => checkAgentVisibleText(agentEvents)).toThrow(/the host saw/);
  });

  it("stream chunks: a finish that is not last, a call resolved twice", () => {
    expect(() =>
      checkStreamChunks([
        streamEvent(1, "m1", { kind: "finish", reason: "stop" }),
        streamEvent(2, "m1", { kind: "text", delta: "x" }),
      ]),
    ).toThrow(/after the finish/);
    const resolved: StreamChunk = {
      kind: "tool_call",
      toolCallId: "c1",
      toolName: "alpha",
      status: "finished",
      result: { content: [], isError: false },
    };
    expect(() => checkStreamChunks([streamEvent(1, "m1", resolved), streamEvent(2, "m1", resolved)])).toThrow(
      /resolved twice/,
    );
  });

  it("event numbering: a gap in seq, a misplaced or wrong dropped-events notice, a notice no stalling writer explains", () => {
    const status = (seq: number, value: "running" | "aborted"): RuntimeEvent => ({
      schema: RUNTIME_EVENT_SCHEMA,
      eventId: `e${seq}`,
      sessionId: "s",
      turnId: "t",
      seq,
      type: "session.status",
      payload: { status: value },
    });
    const notice = (seq: number, droppedEvents: number, droppedTypes: Record<string, number>): RuntimeEvent => ({
      schema: RUNTIME_EVENT_SCHEMA,
      eventId: `e${seq}`,
      sessionId: "s",
      turnId: "t",
      seq,
      type: "debug.trace",
      payload: { phase: "events", level: "warn", message: "dropped", attrs: { droppedEvents, droppedTypes } },
    });
    const run = (events: RuntimeEvent[], callerAborted = true) => ({ events, callerAborted }) as TurnRunObservation;
    const stalling = { writerMayStall: true, writerBounded: false };
    // 12, 13, then 15: a number given to an event the writer never received.
    expect(() =>
      checkEventNumbering(run([status(1, "running"), trace(2, "turn_start"), status(4, "aborted")]), stalling),
    ).toThrow(/seq 4, expected 3/);
    const cut = [
      status(1, "running"),
      trace(2, "agent_start"),
      notice(3, 2, { "debug.trace": 2 }),
      status(4, "aborted"),
    ];
    expect(() => checkEventNumbering(run(cut), stalling)).not.toThrow();
    expect(() => checkEventNumbering(run(cut), { writerMayStall: false, writerBounded: false })).toThrow(
      /answered every call in time/,
    );
    expect(() => checkEventNumbering(run(cut, false), stalling)).toThrow(/never aborted/);
    // Without an abort, only a hookTimeoutMs that bounds the writer lets events be dropped.
    expect(() => checkEventNumbering(run(cut, false), { ...stalling, writerBounded: true })).not.toThrow();
    const early = [status(1, "running"), notice(2, 1, { "debug.trace": 1 }), trace(3, "x"), status(4, "aborted")];
    expect(() => checkEventNumbering(run(early), stalling)).toThrow(/not right before the terminal/);
    const wrongSum = [status(1, "running"), notice(2, 3, { "debug.trace": 1 }), status(3, "aborted")];
    expect(() => checkEventNumbering(run(wrongSum), stalling)).toThrow(/does not add up/);
    // Two events of one turn under one id: a host keying its store by eventId loses one.
    const repeated = [status(1, "running"), { ...trace(2, "agent_start"), eventId: "e1" }, status(3, "aborted")];
    expect(() => checkEventNumbering(run(repeated), stalling)).toThrow(/repeats the eventId "e1" of event #0/);
    // A run cut short, as announced, may end inside an agent run; without the notice it may not.
    expect(() => checkLoopTraceGrammar(cut)).not.toThrow();
    expect(() => checkLoopTraceGrammar([status(1, "running"), trace(2, "agent_start"), status(3, "aborted")])).toThrow(
      /inside an agent run/,
    );
  });

  it("sub-agent events: a gap in a child's numbering, an event after its end, a child missing from the report", () => {
    const from = (seq: number, turnSuffix: string, childSeq: number, status: "running" | "completed" | "aborted") => {
      const steps = turnSuffix
        .split("/")
        .map((toolCallId, depth) => ({ toolCallId, agent: depth === 0 ? "sub1" : "inner" }));
      return {
        schema: RUNTIME_EVENT_SCHEMA,
        eventId: `e${seq}`,
        sessionId: "s",
        turnId: "t",
        seq,
        type: "session.status",
        payload: { status },
        origin: { toolCallId: steps[0]!.toolCallId, path: steps, turnId: `t/${turnSuffix}`, seq: childSeq },
      } as RuntimeEvent;
    };
    const parent = (seq: number, status: "running" | "completed"): RuntimeEvent => ({
      schema: RUNTIME_EVENT_SCHEMA,
      eventId: `e${seq}`,
      sessionId: "s",
      turnId: "t",
      seq,
      type: "session.status",
      payload: { status },
    });
    const report = { toolCallId: "c1", agent: "sub1", turnId: "t/c1", outcome: "completed" as const };
    const completed = { kind: "completed" as const, subAgentCalls: [report] };
    const run = (events: RuntimeEvent[]) => ({ events }) as TurnRunObservation;
    // A child that passes on its own sub-agent's two events numbers them too: 1, (2, 3), 4.
    const nested = [
      parent(1, "running"),
      from(2, "c1", 1, "running"),
      from(3, "c1/c9", 1, "running"),
      from(4, "c1/c9", 2, "completed"),
      from(5, "c1", 4, "completed"),
      parent(6, "completed"),
    ];
    expect(() => checkSubAgentEvents(run(nested), completed, ["sub1"])).not.toThrow();
    const gap = [
      parent(1, "running"),
      from(2, "c1", 1, "running"),
      from(3, "c1", 3, "completed"),
      parent(4, "completed"),
    ];
    expect(() => checkSubAgentEvents(run(gap), completed, ["sub1"])).toThrow(/origin.seq 3, expected 2/);
    const late = [...nested.slice(0, 5), from(6, "c1", 5, "completed"), parent(7, "completed")];
    expect(() => checkSubAgentEvents(run(late), completed, ["sub1"])).toThrow(/after its terminal status/);
    expect(() => checkSubAgentEvents(run(nested), { kind: "completed" }, ["sub1"])).toThrow(/the report lists 0/);
    expect(() => checkSubAgentEvents(run(nested), completed, ["other"])).toThrow(/unknown sub-agent/);
    const unended = [parent(1, "running"), from(2, "c1", 1, "running"), parent(3, "completed")];
    expect(() => checkSubAgentEvents(run(unended), { kind: "completed" }, ["sub1"])).toThrow(/no terminal status/);
    expect(() => checkSubAgentEvents(run(unended), { kind: "aborted" }, ["sub1"])).not.toThrow();
  });

  it("leaks: a pending timer, a listener left on a signal, a real timer never cleared", () => {
    const controller = new AbortController();
    const onAbort = () => {};
    controller.signal.addEventListener("abort", onAbort);
    const probe = probeRealTimers();
    const handle = setTimeout(() => {}, 10_000);
    probe.restore();
    const report = {
      pendingVirtualTimers: 1,
      pendingRealTimers: probe.pending(),
      listenersLeft: abortListenerCount(controller.signal),
      unhandledRejections: [],
    };
    clearTimeout(handle);
    controller.signal.removeEventListener("abort", onAbort);
    expect(report.pendingRealTimers).toBe(1);
    expect(report.listenersLeft).toBe(1);
    expect(() => checkNoLeaks(report)).toThrow(/1 timers pending.*1 real timers.*1 abort listeners/);
  });

  it("blank steering: one kept in history, one handed back, one left out without its warning", () => {
    const blank = userMessage(" \n", { timestamp: 5 });
    const dropped = (seq: number, count: number): RuntimeEvent => ({
      schema: RUNTIME_EVENT_SCHEMA,
      eventId: `e${seq}`,
      sessionId: "s",
      turnId: "t",
      seq,
      type: "runtime.warning",
      payload: { code: "steering_dropped", message: "left out", count, source: "getSteeringMessages" },
    });
    const run = (messages: AgentMessage[], events: RuntimeEvent[]) =>
      ({
        events,
        offered: [{ change: { reason: "messageDelta", messages }, accepted: true }],
      }) as unknown as TurnRunObservation;
    const completed = { kind: "completed" as const };
    expect(() => checkBlankSteeringLeftOut(run([user, answer], [dropped(1, 1)]), completed, 1)).not.toThrow();
    expect(() => checkBlankSteeringLeftOut(run([user, blank, answer], [dropped(1, 1)]), completed, 1)).toThrow(
      /history change #0 holds/,
    );
    expect(() =>
      checkBlankSteeringLeftOut(
        run([user, answer], [dropped(1, 1)]),
        { ...completed, undeliveredMessages: [blank] },
        1,
      ),
    ).toThrow(/the outcome hands back/);
    expect(() => checkBlankSteeringLeftOut(run([user, answer], [dropped(1, 1)]), completed, 2)).toThrow(
      /handed over 2 messages that say nothing; steering_dropped warnings count 1/,
    );
  });

  it("prototypes: a key added to Object.prototype", () => {
    const before = snapshotPrototypes();
    Object.defineProperty(Object.prototype, "polluted", { value: true, configurable: true, enumerable: false });
    try {
      expect(() => checkPrototypesUnchanged(before)).toThrow(/Object.prototype changed/);
    } finally {
      delete (Object.prototype as Record<string, unknown>).polluted;
    }
    expect(() => checkPrototypesUnchanged(before)).not.toThrow();
  });

  it("driver: a hang is ended by the watchdog abort, time moves only to the next timer", async () => {
    const clock = createVirtualClock();
    const controller = new AbortController();
    let firedAt = -1;
    clock.setTimeout(() => (firedAt = clock.now()), 30_000);
    const hung = new Promise<void>((resolve) =>
      controller.signal.addEventListener("abort", () => resolve(), { once: true }),
    );
    const report = await driveUntilSettled(hung, clock, () => controller.abort());
    expect(firedAt).toBe(30_000);
    expect(report).toEqual({ watchdogAborted: true, endedAt: 30_000 });
  });
});

describe("the abort-latency measure counts graces waited one after another", () => {
  const wait = (startedAt: number, firedAt: number | undefined) => ({ startedAt, firedAt });

  it("graces that overlap count once; a grace started after one fired extends the chain", () => {
    // Two graces begun by the abort, together: one wait.
    expect(sequentialGraces([wait(0, 250), wait(1, 251)], 0, 300)).toBe(1);
    // A fresh grace per hung call after the abort: 2 + n of them in a row.
    const perCall = Array.from({ length: 4 }, (_, index) => wait(index * 251, index * 251 + 250));
    expect(sequentialGraces(perCall, 0, 1_100)).toBe(4);
  });

  it("ignores graces cleared before they fired, started before the abort or fired after the settle", () => {
    expect(sequentialGraces([wait(10, undefined), wait(-5, 245), wait(300, 550)], 0, 400)).toBe(0);
  });

  it("sees the real grace timers a run starts", async () => {
    const probe = probeGraceTimers();
    try {
      await new Promise((resolve) => setTimeout(resolve, ABORT_GRACE_MS));
      await new Promise((resolve) => setTimeout(resolve, ABORT_GRACE_MS));
      expect(sequentialGraces(probe.waits(), 0, performance.now())).toBe(2);
    } finally {
      probe.restore();
    }
  });
});
