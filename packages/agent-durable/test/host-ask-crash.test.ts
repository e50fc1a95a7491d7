/*
 * A worker killed with SIGKILL while a tool call waits for the host's answer
 * (`ctx.askHost`), and again while the turn streams after that call.
 */
import type { RuntimeEvent } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import type { DurableTurnRef } from "../src/index.js";
import { assertLogInvariants, finalText, resumeTraces } from "./support/log-assertions.js";
import { useDurableFixture } from "./support/durable-fixture.js";
import { waitFor } from "./support/worker-cluster.js";

const fixture = useDurableFixture([{ id: "q1", env: { LEASE_MS: "1500" } }]);

const answer = { action: "accept", content: { branch: "main" } } as const;
const requestIdOf = (turn: DurableTurnRef) => `elicitation:${turn.turnId}-call-0:1`;

/** The text deltas streamed after the tool call (the turn's second message). */
async function deltasAfterTool(turn: DurableTurnRef): Promise<number> {
  const events = await fixture.client.readEvents(turn);
  return events.filter(
    (e) => e.type === "stream.resp" && e.payload.chunk.kind === "text" && /#m2/.test(e.payload.messageId),
  ).length;
}

function startAsking(turnId: string): Promise<DurableTurnRef> {
  return fixture.client.start({
    sessionId: `s-${turnId}`,
    turnId,
    userMessage: { text: "pick a branch" },
    // After the call, a slow answer (16 s at most) until the kill; fast when sent again.
    metadata: { scenario: "ask", afterToolDeltas: 80, delayMs: 200, resendDelayMs: 5 },
  });
}

function checkLog(turn: DurableTurnRef, events: RuntimeEvent[]): void {
  assertLogInvariants(events);
  // Asked once: the call run again after the crash found its question in the log.
  expect(events.filter((e) => e.type === "action.required").map((e) => e.payload)).toEqual([
    expect.objectContaining({ requestId: requestIdOf(turn), kind: "elicitation", toolCallId: `${turn.turnId}-call-0` }),
  ]);
  expect(finalText(events)).toMatch(/^after tool: branch main a0 a1/);
  // The call ran twice (it is `replay: "safe"`) and finished once; the answer was taken once.
  expect(fixture.countsOf(turn, "tool-start")).toBe(2);
  expect(fixture.countsOf(turn, "tool-end")).toBe(1);
  // Two resumes: the call that waited, then the answer streaming after it. The second range holds only what the
  // interrupted request streamed: the finished call's question and trace were logged again at their place on replay.
  const [, streamResume] = resumeTraces(events);
  const { supersededFromSeq, supersededToSeq } = streamResume!.payload.attrs as Record<string, number>;
  const superseded = events.filter((e) => e.seq >= supersededFromSeq && e.seq <= supersededToSeq);
  expect(superseded.length).toBeGreaterThanOrEqual(10);
  expect(new Set(superseded.map((e) => (e.type === "stream.resp" ? e.payload.messageId : e.type)))).toEqual(
    new Set([expect.stringMatching(/#m2\.r1$/)]),
  );
}

describe("a tool call waiting for the host, across crashes", () => {
  it("killed while waiting: answered while the worker is down, or after it restarted; then killed mid-answer", async () => {
    const early = await startAsking("answered-while-down");
    const late = await startAsking("answered-after-restart");
    for (const turn of [early, late])
      await waitFor(
        "the question in the log",
        async () => (await fixture.eventsOfType(turn, "action.required")).length === 1,
      );
    await fixture.cluster.kill("q1");
    await fixture.client.respond(early, requestIdOf(early), answer);
    await fixture.cluster.start("q1", { LEASE_MS: "1500" });
    // The restarted call of the late turn asks again, finds no answer and waits: no second question is logged.
    await waitFor("the late call asked again", async () => fixture.countsOf(late, "tool-start") === 2);
    expect(await fixture.eventsOfType(late, "action.required")).toHaveLength(1);
    await fixture.client.respond(late, requestIdOf(late), answer);
    for (const turn of [early, late])
      await waitFor("ten deltas of the answer", async () => (await deltasAfterTool(turn)) >= 10);
    await fixture.cluster.kill("q1");
    await fixture.cluster.start("q1", { LEASE_MS: "1500" });
    for (const turn of [early, late]) {
      expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "completed" });
      checkLog(turn, await fixture.client.readEvents(turn));
    }
  }, 120_000);
});
