import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isTerminalEvent, type RuntimeEvent } from "@turnkit/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DurableTurnClient } from "../src/index.js";
import { startTestPostgres, type TestPostgres } from "../src/testing/index.js";
import { WorkerCluster, waitFor } from "./support/worker-cluster.js";

let postgres: TestPostgres;
let client: DurableTurnClient;
let cluster: WorkerCluster;
let scratch: string;

beforeAll(async () => {
  postgres = await startTestPostgres();
  client = await DurableTurnClient.connect({ databaseUrl: postgres.url });
  scratch = mkdtempSync(join(tmpdir(), "turnkit-durable-"));
  cluster = new WorkerCluster(postgres.url, join(scratch, "counts.jsonl"));
}, 120_000);

afterAll(async () => {
  await cluster?.stopAll();
  await client?.close();
  await postgres?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}, 60_000);

/** The invariants every durable turn's log must satisfy. */
function assertLogInvariants(events: RuntimeEvent[]): void {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
  expect(events.filter(isTerminalEvent)).toEqual([events.at(-1)]);
  expect(events[0]).toMatchObject({ type: "session.status", payload: { status: "running" } });
}

describe("a durable turn", () => {
  it("runs a tool call and completes, with a contiguous log", async () => {
    await cluster.start("w1");
    const turn = await client.start({ sessionId: "s-basic", turnId: "t1", userMessage: { text: "write it" }, metadata: { scenario: "tool", toolMs: 50 } });
    expect(await client.outcome(turn)).toEqual({ kind: "completed" });
    const events = await client.readEvents(turn);
    assertLogInvariants(events);
    const texts = events.flatMap((e) => (e.type === "stream.resp" && e.payload.chunk.kind === "text" ? [e.payload.chunk.delta] : []));
    expect(texts.join("")).toContain("after tool: wrote t1.txt");
  }, 60_000);
});
