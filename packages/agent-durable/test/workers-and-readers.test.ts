import type { RuntimeEvent } from "@turnkit/protocol";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { type DurableTurnRef } from "../src/index.js";
import { assertLogInvariants } from "./support/log-assertions.js";
import type { CountRecord } from "./support/scenario-turns.js";
import { useDurableFixture } from "./support/durable-fixture.js";

const WORKERS = ["q1", "q2", "q3"];
const CONCURRENCY = 4;
/** More sessions than the workers have slots (12), each with turns queued behind each other. */
const SESSIONS = 16;
const TURNS_PER_SESSION = 5;
const fixture = useDurableFixture(
  WORKERS.map((id) => ({ id, env: { BUILD: "sessions", CONCURRENCY: String(CONCURRENCY) } })),
);

/** Intervals [start, end] of each turn of a session, from the records of its hooks. */
function turnIntervals(records: CountRecord[], sessionId: string): { turnId: string; start: number; end: number }[] {
  const byTurn = new Map<string, { turnId: string; start: number; end: number }>();
  for (const r of records.filter((r) => r.sessionId === sessionId)) {
    const interval = byTurn.get(r.turnId) ?? { turnId: r.turnId, start: Infinity, end: -Infinity };
    if (r.kind === "session-start") interval.start = Math.min(interval.start, r.at);
    if (r.kind === "session-end") interval.end = Math.max(interval.end, r.at);
    byTurn.set(r.turnId, interval);
  }
  return [...byTurn.values()].sort((a, b) => a.start - b.start);
}

/** Most turns a worker ran at once, from the start and end records of every turn. */
function peakPerWorker(records: CountRecord[]): Map<string, number> {
  const peaks = new Map<string, number>();
  const running = new Map<string, number>();
  for (const r of [...records].sort((a, b) => a.at - b.at || (a.kind === "session-end" ? -1 : 1))) {
    if (r.kind !== "session-start" && r.kind !== "session-end") continue;
    const worker = r.worker ?? "?";
    const now = (running.get(worker) ?? 0) + (r.kind === "session-start" ? 1 : -1);
    running.set(worker, now);
    peaks.set(worker, Math.max(peaks.get(worker) ?? 0, now));
  }
  return peaks;
}

describe("workers and the queue", () => {
  it("80 turns of 16 sessions over 3 workers all complete; a session's turns never overlap and run in start order", async () => {
    const sessions = Array.from({ length: SESSIONS }, (_, i) => `load-${i}`);
    const turns: DurableTurnRef[] = [];
    for (let n = 0; n < TURNS_PER_SESSION; n++) {
      turns.push(
        ...(await Promise.all(
          sessions.map((sessionId) =>
            fixture.client.start({ sessionId, turnId: `t${n}`, userMessage: { text: `message ${n}` } }),
          ),
        )),
      );
    }
    const outcomes = await Promise.all(turns.map((turn) => fixture.client.outcome(turn)));
    expect(outcomes).toHaveLength(SESSIONS * TURNS_PER_SESSION);
    // Every turn completed; a failure shows which outcome it had instead.
    expect(outcomes.filter((o) => o.kind !== "completed")).toEqual([]);

    const records = fixture.cluster.counts();
    for (const sessionId of sessions) {
      const intervals = turnIntervals(records, sessionId);
      expect(intervals.map((i) => i.turnId)).toEqual(Array.from({ length: TURNS_PER_SESSION }, (_, n) => `t${n}`));
      for (let i = 1; i < intervals.length; i++)
        expect(intervals[i].start).toBeGreaterThanOrEqual(intervals[i - 1].end);
    }
    const peaks = peakPerWorker(records);
    expect([...peaks.keys()].sort()).toEqual(WORKERS);
    for (const peak of peaks.values()) expect(peak).toBeLessThanOrEqual(CONCURRENCY);

    // Each turn's messages are stored once, in order, in its session's history.
    const db = new pg.Client({ connectionString: fixture.postgres.url });
    await db.connect();
    try {
      const { rows } = await db.query(
        `SELECT message FROM turnkit_durable.session_messages WHERE session_id = 'load-0' ORDER BY position`,
      );
      const texts = rows.map(
        ({ message }) =>
          `${message.role}:${typeof message.content === "string" ? message.content : message.content[0]?.text}`,
      );
      expect(texts).toEqual(
        Array.from({ length: TURNS_PER_SESSION }, (_, n) => [`user:message ${n}`, "assistant:ok"]).flat(),
      );
    } finally {
      await db.end();
    }
    for (const turn of turns.slice(0, SESSIONS)) assertLogInvariants(await fixture.client.readEvents(turn));
  }, 120_000);

  it("starting a turn twice returns the same turn and runs it once", async () => {
    const request = { sessionId: "twice", turnId: "t1", userMessage: { text: "once" } };
    const [first, second] = await Promise.all([fixture.client.start(request), fixture.client.start(request)]);
    expect(second).toEqual(first);
    expect(await fixture.client.outcome(first)).toMatchObject({ kind: "completed" });
    expect(fixture.cluster.counts().filter((r) => r.sessionId === "twice" && r.kind === "model")).toHaveLength(1);
  }, 60_000);
});

describe("readers", () => {
  it("a reader that reconnects with the last seq it saw gets the rest, with no gap and no repeat", async () => {
    const turn = await fixture.client.start({
      sessionId: "reader",
      turnId: "t1",
      userMessage: { text: "talk" },
      metadata: { scenario: "stream", deltas: 120, delayMs: 10 },
    });
    const seen: RuntimeEvent[] = [];
    for await (const event of fixture.client.follow(turn)) {
      seen.push(event);
      if (seen.length === 25) break; // the connection drops
    }
    const lastSeq = seen.at(-1)!.seq;
    for await (const event of fixture.client.follow(turn, { afterSeq: lastSeq })) seen.push(event);
    assertLogInvariants(seen);
    expect(seen).toEqual(await fixture.client.readEvents(turn));
    expect(seen.filter((e) => e.type === "stream.resp" && e.payload.chunk.kind === "text")).toHaveLength(120);
  }, 60_000);

  it("a reader that reconnects after the ending (its seq, or one past it) ends at once with nothing", async () => {
    // Before, it waited forever: an SSE client whose browser reconnects after the last event held a stream open.
    const turn = await fixture.client.start({ sessionId: "reader-after", turnId: "t1", userMessage: { text: "hi" } });
    await fixture.client.outcome(turn);
    const ending = (await fixture.client.readEvents(turn)).at(-1)!;
    for (const afterSeq of [ending.seq, ending.seq + 100]) {
      const read = (async () => {
        const seen: RuntimeEvent[] = [];
        for await (const event of fixture.client.follow(turn, { afterSeq })) seen.push(event);
        return seen;
      })();
      const waited = new Promise((resolve) => setTimeout(() => resolve("still waiting"), 2_000).unref());
      expect(await Promise.race([read, waited])).toEqual([]);
    }
  }, 60_000);
});
