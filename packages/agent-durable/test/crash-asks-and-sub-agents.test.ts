/*
 * One worker killed with SIGKILL while turns wait for the host or run
 * sub-agents: a tool call waiting for the host's answer (`ctx.askHost`),
 * answered while the worker is down or after it restarted; a turn streaming
 * after a call whose question was answered before the crash; and a
 * sub-agent's child turn killed while it streams, while its tool runs, and
 * while its tool waits for approval, while one of its two parallel calls
 * runs; a `replay: "never"` call killed while
 * it waits, whose question is then withdrawn; three parallel sub-agent
 * calls killed at once, one child streaming, one in its tool, one waiting
 * for approval. One kill for all of them: crash tests cost seconds.
 */
import { assertRuntimeEventSequence } from "@turnkit/agent-core/testing";
import type { RuntimeEvent } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import { DurableTurnError, INTERRUPTED_TOOL_RESULT_TEXT, type DurableTurnRef } from "../src/index.js";
import { assertLogInvariants, finalText, resumeTraces } from "./support/log-assertions.js";
import { useDurableFixture } from "./support/durable-fixture.js";
import { waitFor } from "./support/worker-cluster.js";

// Ten turns at once, each holding its slot until the kill.
const settings = { LEASE_MS: "1500", CONCURRENCY: "10" };
const fixture = useDurableFixture([{ id: "k1", env: settings }]);

const answer = { action: "accept", content: { branch: "main" } } as const;
const requestIdOf = (turn: DurableTurnRef) => `elicitation:${turn.turnId}-call-0:1`;

function start(turnId: string, metadata: Record<string, unknown>): Promise<DurableTurnRef> {
  return fixture.client.start({ sessionId: `s-${turnId}`, turnId, userMessage: { text: "go" }, metadata });
}

/** Model requests recorded by the workers: the child's (`child`) at a position of its transcript, or the parent's. */
function requests(turn: DurableTurnRef, who: "child" | "parent", position?: number): number {
  return fixture.cluster
    .counts()
    .filter(
      (c) =>
        c.turnId === turn.turnId &&
        c.kind === "model" &&
        (who === "child") === (c.detail === "child") &&
        (position === undefined || c.position === position),
    ).length;
}

function toolRuns(turn: DurableTurnRef): [number, number] {
  const counts = fixture.cluster.counts().filter((c) => c.turnId === turn.turnId);
  return [counts.filter((c) => c.kind === "tool-start").length, counts.filter((c) => c.kind === "tool-end").length];
}

async function textDeltas(turn: DurableTurnRef, which: (e: RuntimeEvent<"stream.resp">) => boolean): Promise<number> {
  const events = await fixture.client.readEvents(turn);
  return events.filter((e) => e.type === "stream.resp" && e.payload.chunk.kind === "text" && which(e)).length;
}

async function questions(turn: DurableTurnRef): Promise<RuntimeEvent[]> {
  return fixture.eventsOfType(turn, "action.required");
}

/** The events in the ranges resumes marked superseded, range by range. */
function supersededRanges(events: RuntimeEvent[]): RuntimeEvent[][] {
  return resumeTraces(events).map((trace) => {
    const { supersededFromSeq, supersededToSeq } = trace.payload.attrs as Record<string, number>;
    return events.filter((e) => e.seq >= supersededFromSeq && e.seq <= supersededToSeq);
  });
}

/** The events outside the superseded ranges (what a reader keeps). */
function kept(events: RuntimeEvent[]): RuntimeEvent[] {
  const superseded = new Set(supersededRanges(events).flat());
  return events.filter((e) => !superseded.has(e));
}

/** An `ask` turn: asked once (a call run again found its question), the answer reached the call. */
function checkAskLog(turn: DurableTurnRef, events: RuntimeEvent[]): void {
  assertLogInvariants(events);
  expect(events.filter((e) => e.type === "action.required").map((e) => e.payload)).toEqual([
    expect.objectContaining({ requestId: requestIdOf(turn), kind: "elicitation", toolCallId: `${turn.turnId}-call-0` }),
  ]);
  expect(finalText(events)).toMatch(/^after tool: branch main/);
}

/** The requests a reader sees still open at the end: announced by an `action.required`, never closed by a trace. */
function openRequests(events: RuntimeEvent[]): string[] {
  const closed = new Set(
    events.flatMap((e) =>
      e.type === "debug.trace" && ["action.request", "durable.approval"].includes(e.payload.phase)
        ? [String(e.payload.attrs?.requestId)]
        : [],
    ),
  );
  return events.flatMap((e) =>
    e.type === "action.required" && !closed.has(e.payload.requestId) ? [e.payload.requestId] : [],
  );
}

/** A `sub-agent` turn: the child's events marked and each logged once, the parent's answer, no request sent twice but one. */
function checkChildLog(turn: DurableTurnRef, events: RuntimeEvent[]): void {
  assertLogInvariants(events);
  // The whole log, superseded events included, is a valid stream, the child's events one valid stream of their own.
  expect(assertRuntimeEventSequence(events)).toBe("completed");
  const callId = `${turn.turnId}-call-0`;
  // What the durable layer logged about the child's call (its approval, how it ended) is the child's.
  const aboutChildCall = events.filter(
    (e) =>
      (e.type === "action.required" || e.type === "debug.trace") &&
      JSON.stringify(e.payload).includes(`${turn.turnId}-child-call`),
  );
  for (const event of aboutChildCall) expect(event.origin?.turnId).toBe(`${turn.turnId}/${callId}`);
  const child = events.filter((e) => e.origin);
  expect(child.length).toBeGreaterThan(10);
  for (const event of child)
    expect(event.origin).toMatchObject({
      toolCallId: callId,
      path: [{ toolCallId: callId, agent: "explore" }],
      turnId: `${turn.turnId}/${callId}`,
    });
  // The child's sequence counts its logged events, superseded ones included: 1, 2, 3, ... in log order.
  const childSeqs = events.flatMap((e) => (e.origin ? [e.origin.seq] : []));
  expect(childSeqs).toEqual(childSeqs.map((_, i) => i + 1));
  const finishes = kept(events).flatMap((e) =>
    e.type === "stream.resp" && e.payload.chunk.kind === "finish" ? [e.payload.messageId] : [],
  );
  expect(new Set(finishes).size).toBe(finishes.length);
  expect(finishes).toHaveLength(4); // parent, child (tool call), child (answer), parent
  expect(finalText(events)).toMatch(/^after explore: found it: c0 c1/);
  expect(requests(turn, "parent")).toBe(2);
  expect(requests(turn, "child", 1)).toBe(1);
  // What a resume superseded is the child's step running at the crash, nothing the replay logged again.
  for (const range of supersededRanges(events)) expect(range.every((e) => e.origin !== undefined)).toBe(true);
  // The session history holds the parent's messages only.
  const stored = events.flatMap((e) => (!e.origin && e.type === "message.persisted" ? e.payload.messages : []));
  expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
}

/** Model requests of the `scout` child whose task is `task`, at a position of its transcript. */
function scoutRequests(turn: DurableTurnRef, task: string, position: number): number {
  return fixture.cluster
    .counts()
    .filter(
      (c) => c.turnId === turn.turnId && c.kind === "model" && c.detail === `scout:${task}` && c.position === position,
    ).length;
}

/** Tool starts and ends of one call id. */
function callRuns(turn: DurableTurnRef, callId: string): [number, number] {
  const counts = fixture.cluster.counts().filter((c) => c.turnId === turn.turnId && c.detail === callId);
  return [counts.filter((c) => c.kind === "tool-start").length, counts.filter((c) => c.kind === "tool-end").length];
}

/**
 * The `parallel-sub-agents` turn: three `scout` children ran at once; the
 * kill found one streaming, one in its `never` tool, one waiting for
 * approval. Each went on where it was: no finished request or call again,
 * each event logged once, each child's events numbered in its own
 * sequence, only the streaming child's interrupted answer superseded.
 */
function checkScoutsLog(turn: DurableTurnRef, events: RuntimeEvent[]): void {
  assertLogInvariants(events);
  expect(assertRuntimeEventSequence(events)).toBe("completed");
  const call = (task: string) => `${turn.turnId}-scout-${task}`;
  const sequences = new Map<string, number[]>();
  for (const e of events)
    if (e.origin) sequences.set(e.origin.turnId, [...(sequences.get(e.origin.turnId) ?? []), e.origin.seq]);
  expect([...sequences.keys()].sort()).toEqual(["approval", "stream", "tool"].map((t) => `${turn.turnId}/${call(t)}`));
  for (const seqs of sequences.values()) expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  // The children ran at once: their events interleave in the log.
  const owners = events.flatMap((e) => (e.origin ? [e.origin.toolCallId] : []));
  const switches = owners.filter((owner, i) => i > 0 && owner !== owners[i - 1]).length;
  expect(switches).toBeGreaterThan(2);
  // The turn's own stream shows each call prepared, started and finished, once (a replay logged none again).
  for (const task of ["stream", "tool", "approval"])
    expect(
      events.flatMap((e) =>
        !e.origin &&
        e.type === "stream.resp" &&
        e.payload.chunk.kind === "tool_call" &&
        e.payload.chunk.toolCallId === call(task)
          ? [e.payload.chunk.status]
          : [],
      ),
    ).toEqual(["preparing", "started", "finished"]);
  // Requests: the parent's two, each child's first once; only the answer streaming at the kill was sent again.
  const parentRequests = fixture.cluster
    .counts()
    .filter((c) => c.turnId === turn.turnId && c.kind === "model" && !c.detail?.startsWith("scout:"));
  expect(parentRequests).toHaveLength(2);
  for (const task of ["stream", "tool", "approval"]) expect(scoutRequests(turn, task, 1)).toBe(1);
  expect(scoutRequests(turn, "stream", 3)).toBe(2);
  expect(scoutRequests(turn, "tool", 3)).toBe(1);
  expect(scoutRequests(turn, "approval", 3)).toBe(1);
  // Calls: the finished quick one not again, the `never` one running at the kill not again, the approved one once.
  expect(callRuns(turn, `${turn.turnId}-stream-call`)).toEqual([1, 1]);
  expect(callRuns(turn, `${turn.turnId}-tool-call`)).toEqual([1, 0]);
  expect(callRuns(turn, `${turn.turnId}-approval-call`)).toEqual([1, 1]);
  expect(events.filter((e) => e.type === "action.required").map((e) => e.payload.requestId)).toEqual([
    `approval:${call("approval")}/${turn.turnId}-approval-call`,
  ]);
  // A resume notice for each child whose step the kill interrupted after it logged something: in its range,
  // that child's events are the interrupted answer, and the question (still open: the wait goes on, it is not
  // asked again); the child in its tool had logged nothing since it started.
  const notices = resumeTraces(events);
  expect(notices.map((e) => e.origin?.toolCallId).sort()).toEqual([call("approval"), call("stream")]);
  const supersededOf = (task: string) => {
    const notice = notices.find((e) => e.origin?.toolCallId === call(task))!;
    const { supersededFromSeq, supersededToSeq } = notice.payload.attrs as Record<string, number>;
    return events.filter(
      (e) => e.seq >= supersededFromSeq && e.seq <= supersededToSeq && e.origin?.toolCallId === call(task),
    );
  };
  const interrupted = supersededOf("stream");
  expect(interrupted.length).toBeGreaterThanOrEqual(10);
  expect(new Set(interrupted.map((e) => (e.type === "stream.resp" ? e.payload.messageId : e.type)))).toEqual(
    new Set([expect.stringMatching(/scout-stream#m2$/)]),
  );
  expect(supersededOf("approval").map((e) => e.type)).toEqual(["action.required"]);
  const finishes = events.flatMap((e) =>
    e.type === "stream.resp" && e.payload.chunk.kind === "finish" ? [e.payload.messageId] : [],
  );
  expect(new Set(finishes).size).toBe(finishes.length);
  expect(finishes).toHaveLength(2 + 3 * 2);
  // Each child's answer (its first 30 characters) in the model's order: what it read, was interrupted in, wrote.
  expect(finalText(events)).toBe(
    "after scouts: stream got read scouts-stream. | tool got This tool call was i: | approval got wrote scouts-appr",
  );
}

/**
 * The `parallel-sub-agents` turn killed after its three calls, while the
 * turn's answer streamed: the calls replayed from their records (nothing
 * logged again, nothing renumbered), the answer sent again after the
 * turn's own resume notice, which supersedes only that answer.
 */
function checkScoutsAfterLog(turn: DurableTurnRef, events: RuntimeEvent[]): void {
  assertLogInvariants(events);
  expect(assertRuntimeEventSequence(events)).toBe("completed");
  for (const task of ["stream", "tool", "approval"]) {
    expect(scoutRequests(turn, task, 1)).toBe(1);
    expect(scoutRequests(turn, task, 3)).toBe(1);
    expect(callRuns(turn, `${turn.turnId}-${task}-call`)).toEqual([1, 1]);
  }
  const sequences = new Map<string, number[]>();
  for (const e of events)
    if (e.origin) sequences.set(e.origin.turnId, [...(sequences.get(e.origin.turnId) ?? []), e.origin.seq]);
  expect(sequences.size).toBe(3);
  for (const seqs of sequences.values()) expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  const [notice, ...more] = resumeTraces(events);
  expect(more).toEqual([]);
  expect(notice!.origin).toBeUndefined();
  const { supersededFromSeq, supersededToSeq } = notice!.payload.attrs as Record<string, number>;
  const superseded = events.filter((e) => e.seq >= supersededFromSeq && e.seq <= supersededToSeq);
  expect(superseded.length).toBeGreaterThanOrEqual(10);
  expect(new Set(superseded.map((e) => (e.type === "stream.resp" ? e.payload.messageId : e.type)))).toEqual(
    new Set([expect.stringMatching(/scouts-after#m2$/)]),
  );
  const finishes = events.flatMap((e) =>
    e.type === "stream.resp" && e.payload.chunk.kind === "finish" ? [e.payload.messageId] : [],
  );
  expect(new Set(finishes).size).toBe(finishes.length);
  expect(finishes).toHaveLength(2 + 3 * 2);
  expect(finalText(events)).toMatch(/^after scouts: stream got read scouts-after-s.* \| tool got wrote scouts-after/);
}

describe("a worker killed while turns ask the host or run sub-agents", () => {
  it("each turn goes on where it was: asked once, finished requests and calls not repeated, no event twice", async () => {
    // After its call, a slow answer (16 s at most) until the kill; fast when sent again.
    const slowAfter = { scenario: "ask", afterToolDeltas: 80, delayMs: 200, resendDelayMs: 5 };
    const answeredBefore = await start("answered-before", slowAfter);
    const answeredWhileDown = await start("answered-while-down", { scenario: "ask" });
    const answeredAfter = await start("answered-after", { scenario: "ask" });
    // A `never` call waiting for its answer at the kill: given up after the restart, its question withdrawn.
    const withdrawn = await start("withdrawn", { scenario: "ask", askReplay: "never" });
    // The child streams slowly (16 s at most) until the kill; its tool runs until the kill; its tool waits for approval.
    const childStreams = await start("child-stream", {
      scenario: "sub-agent",
      toolMs: 20,
      childDeltas: 80,
      delayMs: 200,
      resendDelayMs: 5,
    });
    const childTool = await start("child-tool", { scenario: "sub-agent", toolMs: 600_000 });
    const childApproval = await start("child-approval", { scenario: "sub-agent", toolMs: 20, childApproval: true });
    // The child's two parallel calls: the quick one finished, the other running at the kill.
    const childParallel = await start("child-parallel", { scenario: "sub-agent", childParallel: true });
    // Three parallel sub-agent calls: one child streams slowly, one runs its tool, one waits for approval.
    const scouts = await start("scouts", {
      scenario: "parallel-sub-agents",
      toolMs: 600_000,
      childDeltas: 80,
      delayMs: 200,
      resendDelayMs: 5,
    });

    await waitFor("the first question", async () => (await questions(answeredBefore)).length === 1);
    await fixture.client.respond(answeredBefore, requestIdOf(answeredBefore), answer);
    await waitFor(
      "ten deltas after the answered call",
      async () => (await textDeltas(answeredBefore, (e) => /#m2$/.test(e.payload.messageId))) >= 10,
    );
    for (const turn of [answeredWhileDown, answeredAfter, withdrawn, childApproval])
      await waitFor("a question", async () => (await questions(turn)).length === 1);
    await waitFor("ten deltas of a child", async () => (await textDeltas(childStreams, (e) => !!e.origin)) >= 10);
    await waitFor("the child's tool running", async () => toolRuns(childTool)[0] === 1);
    await waitFor("the child's parallel calls", async () => toolRuns(childParallel).join() === "2,1");
    await waitFor(
      "ten deltas of the streaming scout",
      async () => (await textDeltas(scouts, (e) => e.origin?.toolCallId === "scouts-scout-stream")) >= 10,
    );
    await waitFor("the scout's tool running", async () => callRuns(scouts, "scouts-tool-call")[0] === 1);
    await waitFor("the scout's approval", async () => (await questions(scouts)).length === 1);
    // The same three calls, all finished (the approval answered at once), then the turn's slow answer.
    const scoutsAfter = await start("scouts-after", {
      scenario: "parallel-sub-agents",
      toolMs: 20,
      childDeltas: 3,
      afterDeltas: 80,
      afterDelayMs: 200,
      resendDelayMs: 5,
    });
    await waitFor("the scout's approval", async () => (await questions(scoutsAfter)).length === 1);
    await fixture.client.respond(scoutsAfter, "approval:scouts-after-scout-approval/scouts-after-approval-call", {
      approved: true,
    });
    await waitFor(
      "ten deltas of the answer after the scouts",
      async () => (await textDeltas(scoutsAfter, (e) => !e.origin && /#m2$/.test(e.payload.messageId))) >= 10,
    );

    await fixture.cluster.kill("k1");
    await fixture.client.respond(answeredWhileDown, requestIdOf(answeredWhileDown), answer);
    await fixture.cluster.start("k1", settings);
    // The call run again asks again, finds no answer and waits: no second question is logged.
    await waitFor("the call asked again", async () => toolRuns(answeredAfter)[0] === 2);
    expect(await questions(answeredAfter)).toHaveLength(1);
    await fixture.client.respond(answeredAfter, requestIdOf(answeredAfter), answer);
    await fixture.client.respond(childApproval, "approval:child-approval-call-0/child-approval-child-call", {
      approved: true,
    });
    await fixture.client.respond(scouts, "approval:scouts-scout-approval/scouts-approval-call", { approved: true });
    const all = [
      ...[answeredBefore, answeredWhileDown, answeredAfter, withdrawn],
      ...[childStreams, childTool, childApproval, childParallel, scouts, scoutsAfter],
    ];
    for (const turn of all) expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "completed" });
    // No reader is left with a question nobody will take.
    for (const turn of all) expect(openRequests(await fixture.client.readEvents(turn))).toEqual([]);

    // Waiting at the crash with `replay: "never"`: not run again, its question closed as withdrawn, answers refused.
    const given = await fixture.client.readEvents(withdrawn);
    assertLogInvariants(given);
    expect(assertRuntimeEventSequence(given)).toBe("completed");
    expect(toolRuns(withdrawn)).toEqual([1, 0]);
    expect(given.filter((e) => e.type === "action.required")).toHaveLength(1);
    expect(
      given.flatMap((e) => (e.type === "debug.trace" && e.payload.phase === "action.request" ? [e.payload.attrs] : [])),
    ).toEqual([{ requestId: requestIdOf(withdrawn), kind: "elicitation", outcome: "withdrawn" }]);
    expect(finalText(given)).toBe(`after tool: ${INTERRUPTED_TOOL_RESULT_TEXT.slice(0, 40)}`);
    await expect(fixture.client.respond(withdrawn, requestIdOf(withdrawn), answer)).rejects.toSatisfy(
      (e) => DurableTurnError.isInstance(e) && e.code === "request_withdrawn",
    );

    // Answered before the crash: the call finished and was not run again; its question and trace were logged
    // again at their place on replay, so what the resume superseded is the interrupted answer alone.
    const before = await fixture.client.readEvents(answeredBefore);
    checkAskLog(answeredBefore, before);
    expect(toolRuns(answeredBefore)).toEqual([1, 1]);
    const [interrupted] = supersededRanges(before);
    expect(interrupted!.length).toBeGreaterThanOrEqual(10);
    expect(new Set(interrupted!.map((e) => (e.type === "stream.resp" ? e.payload.messageId : e.type)))).toEqual(
      new Set([expect.stringMatching(/#m2$/)]),
    );
    // Waiting at the crash: the call (`replay: "safe"`) ran again and took the answer once.
    for (const turn of [answeredWhileDown, answeredAfter]) {
      checkAskLog(turn, await fixture.client.readEvents(turn));
      expect(toolRuns(turn)).toEqual([2, 1]);
    }

    checkChildLog(childStreams, await fixture.client.readEvents(childStreams));
    expect(requests(childStreams, "child", 3)).toBe(2); // the answer streaming at the crash, sent again
    expect(toolRuns(childStreams)).toEqual([1, 1]);

    const tooled = await fixture.client.readEvents(childTool);
    checkChildLog(childTool, tooled);
    expect(requests(childTool, "child", 3)).toBe(1);
    // The child's `never` call running at the crash was not run again: its result says it was interrupted.
    expect(toolRuns(childTool)).toEqual([1, 0]);
    const childResults = tooled.flatMap((e) =>
      e.origin && e.type === "message.persisted" ? e.payload.messages.filter((m) => m.role === "toolResult") : [],
    );
    expect(childResults.map((m) => (m as { content?: unknown }).content)).toEqual([
      [{ type: "text", text: INTERRUPTED_TOOL_RESULT_TEXT }],
    ]);

    // The child's approval asked before the crash was answered after it: asked once, the call ran once.
    const approved = await fixture.client.readEvents(childApproval);
    checkChildLog(childApproval, approved);
    expect(approved.filter((e) => e.type === "action.required").map((e) => e.payload)).toEqual([
      expect.objectContaining({
        kind: "tool_approval",
        toolName: "child_read",
        toolCallId: "child-approval-child-call",
      }),
    ]);
    expect(toolRuns(childApproval)).toEqual([1, 1]);

    checkScoutsLog(scouts, await fixture.client.readEvents(scouts));
    checkScoutsAfterLog(scoutsAfter, await fixture.client.readEvents(scoutsAfter));

    // The child's parallel calls ran at once (the quick one ended while the other ran); after the restart the
    // finished one was not run again and the interrupted `never` one was not run again either.
    const paired = await fixture.client.readEvents(childParallel);
    assertLogInvariants(paired);
    expect(assertRuntimeEventSequence(paired)).toBe("completed");
    expect(toolRuns(childParallel)).toEqual([2, 1]);
    const pairedResults = paired.flatMap((e) =>
      e.origin && e.type === "message.persisted" ? e.payload.messages.filter((m) => m.role === "toolResult") : [],
    );
    expect(pairedResults.map((m) => (m as { content?: unknown }).content)).toEqual([
      [{ type: "text", text: "read child-parallel-0.txt" }],
      [{ type: "text", text: INTERRUPTED_TOOL_RESULT_TEXT }],
    ]);
  }, 120_000);
});
