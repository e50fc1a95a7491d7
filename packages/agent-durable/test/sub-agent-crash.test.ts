/*
 * A sub-agent in a durable turn: its child turn's requests, calls and hooks
 * are steps of the turn, so a worker killed with SIGKILL in the middle of the
 * child (while it streams, while its tool runs) resumes the child where it
 * was: finished child requests are not sent again, finished calls not run
 * again, and no event is logged twice.
 */
import type { RuntimeEvent } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import { INTERRUPTED_TOOL_RESULT_TEXT, type DurableTurnRef } from "../src/index.js";
import { assertLogInvariants, finalText, resumeTraces } from "./support/log-assertions.js";
import { useDurableFixture } from "./support/durable-fixture.js";
import { waitFor } from "./support/worker-cluster.js";

const fixture = useDurableFixture([{ id: "x1", env: { LEASE_MS: "1500" } }]);

function startExploring(turnId: string, metadata: Record<string, unknown>): Promise<DurableTurnRef> {
  return fixture.client.start({
    sessionId: `s-${turnId}`,
    turnId,
    userMessage: { text: "explore" },
    metadata: { scenario: "sub-agent", ...metadata },
  });
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

function toolRuns(turn: DurableTurnRef, kind: "tool-start" | "tool-end"): number {
  return fixture.cluster.counts().filter((c) => c.turnId === turn.turnId && c.kind === kind).length;
}

async function childTextDeltas(turn: DurableTurnRef): Promise<number> {
  const events = await fixture.client.readEvents(turn);
  return events.filter((e) => e.origin && e.type === "stream.resp" && e.payload.chunk.kind === "text").length;
}

/** The events outside the ranges a resume marked superseded (what a reader keeps). */
function kept(events: RuntimeEvent[]): RuntimeEvent[] {
  const ranges = resumeTraces(events).map(
    (e) => e.payload.attrs as { supersededFromSeq: number; supersededToSeq: number },
  );
  return events.filter((e) => !ranges.some((r) => e.seq >= r.supersededFromSeq && e.seq <= r.supersededToSeq));
}

/** Checks what holds for both turns: a valid log, the child's events marked and each logged once, the answer. */
function checkLog(turn: DurableTurnRef, events: RuntimeEvent[]): void {
  assertLogInvariants(events);
  const callId = `${turn.turnId}-call-0`;
  const child = events.filter((e) => e.origin);
  expect(child.length).toBeGreaterThan(10);
  for (const event of child)
    expect(event.origin).toMatchObject({
      toolCallId: callId,
      path: [{ toolCallId: callId, agent: "explore" }],
      turnId: `${turn.turnId}/${callId}`,
    });
  // Once each: the child's events by their own seq, every message's ending.
  const childSeqs = kept(events).flatMap((e) => (e.origin ? [e.origin.seq] : []));
  expect(new Set(childSeqs).size).toBe(childSeqs.length);
  const finishes = kept(events).flatMap((e) =>
    e.type === "stream.resp" && e.payload.chunk.kind === "finish" ? [e.payload.messageId] : [],
  );
  expect(new Set(finishes).size).toBe(finishes.length);
  expect(finishes).toHaveLength(4); // parent, child (tool call), child (answer), parent
  expect(finalText(events)).toMatch(/^after explore: found it: c0 c1/);
  // The parent's two requests were each sent once; the child's first one (its tool call) too.
  expect(requests(turn, "parent")).toBe(2);
  expect(requests(turn, "child", 1)).toBe(1);
  // An interrupted range holds only the child's events of the step running at the crash.
  for (const resume of resumeTraces(events)) {
    const { supersededFromSeq, supersededToSeq } = resume.payload.attrs as Record<string, number>;
    const superseded = events.filter((e) => e.seq >= supersededFromSeq && e.seq <= supersededToSeq);
    expect(superseded.every((e) => e.origin !== undefined)).toBe(true);
  }
}

describe("a sub-agent's child turn across a crash", () => {
  it("killed while the child streams, while its tool runs, or while its tool waits for approval: the child resumes where it was", async () => {
    // The child's answer is slow (16 s at most) until the kill, fast when sent again.
    const streaming = await startExploring("child-stream", {
      toolMs: 20,
      childDeltas: 80,
      delayMs: 200,
      resendDelayMs: 5,
    });
    // The child's tool runs until the kill.
    const tooling = await startExploring("child-tool", { toolMs: 600_000 });
    // The child's tool waits for a person's approval.
    const approving = await startExploring("child-approval", { toolMs: 20, childApproval: true });
    await waitFor("ten deltas of the child's answer", async () => (await childTextDeltas(streaming)) >= 10);
    await waitFor(
      "the child's approval request",
      async () => (await fixture.eventsOfType(approving, "action.required")).length === 1,
    );
    await waitFor("the child's tool running", async () => toolRuns(tooling, "tool-start") === 1);
    await fixture.cluster.kill("x1");
    await fixture.cluster.start("x1", { LEASE_MS: "1500" });
    await fixture.client.respond(approving, "approval:child-approval-child-call", { approved: true });
    for (const turn of [streaming, tooling, approving])
      expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "completed" });

    const streamed = await fixture.client.readEvents(streaming);
    checkLog(streaming, streamed);
    expect(requests(streaming, "child", 3)).toBe(2); // the answer streaming at the crash, sent again
    expect([toolRuns(streaming, "tool-start"), toolRuns(streaming, "tool-end")]).toEqual([1, 1]);

    const tooled = await fixture.client.readEvents(tooling);
    checkLog(tooling, tooled);
    expect(requests(tooling, "child", 3)).toBe(1);
    // The child's `never` call running at the crash was not run again: its result says it was interrupted.
    expect([toolRuns(tooling, "tool-start"), toolRuns(tooling, "tool-end")]).toEqual([1, 0]);
    const childResults = tooled.flatMap((e) =>
      e.origin && e.type === "message.persisted" ? e.payload.messages.filter((m) => m.role === "toolResult") : [],
    );
    expect(childResults.map((m) => (m as { content?: unknown }).content)).toEqual([
      [{ type: "text", text: INTERRUPTED_TOOL_RESULT_TEXT }],
    ]);
    // The session history holds the parent's messages only.
    const stored = tooled.flatMap((e) => (!e.origin && e.type === "message.persisted" ? e.payload.messages : []));
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);

    // The approval asked before the crash was answered after it: asked once, the child's call ran once.
    const approved = await fixture.client.readEvents(approving);
    checkLog(approving, approved);
    expect(approved.filter((e) => e.type === "action.required").map((e) => e.payload)).toEqual([
      expect.objectContaining({
        kind: "tool_approval",
        toolName: "child_read",
        toolCallId: "child-approval-child-call",
      }),
    ]);
    expect([toolRuns(approving, "tool-start"), toolRuns(approving, "tool-end")]).toEqual([1, 1]);
  }, 120_000);
});
