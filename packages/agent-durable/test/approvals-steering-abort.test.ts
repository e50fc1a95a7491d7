import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RuntimeEvent } from "@turnkit/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DurableTurnClient, DurableTurnError, approvalRequestId, type DurableTurnRef } from "../src/index.js";
import { startTestPostgres, type TestPostgres } from "../src/testing/index.js";
import { assertLogInvariants, messageText } from "./support/log-assertions.js";
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
  await cluster.start("a1", { LEASE_MS: "1500" });
}, 120_000);

afterAll(async () => {
  await cluster?.stopAll();
  await client?.close();
  await postgres?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}, 60_000);

function countsOf(turn: DurableTurnRef, kind: string): number {
  return cluster.counts().filter((c) => c.turnId === turn.turnId && c.kind === kind).length;
}

async function eventsOfType(turn: DurableTurnRef, type: RuntimeEvent["type"]): Promise<RuntimeEvent[]> {
  return (await client.readEvents(turn)).filter((e) => e.type === type);
}

function finalText(events: RuntimeEvent[]): string {
  const finished = events.filter((e) => e.type === "stream.resp" && e.payload.chunk.kind === "finish").at(-1);
  return finished?.type === "stream.resp" ? messageText(events, finished.payload.messageId) : "";
}

function toolStatuses(events: RuntimeEvent[]): string[] {
  return events.flatMap((e) => (e.type === "stream.resp" && e.payload.chunk.kind === "tool_call" ? [e.payload.chunk.status] : []));
}

describe("approvals", () => {
  it("an approval asked before a crash is answered from another process after the asking worker restarted", async () => {
    const turn = await client.start({ sessionId: "s-approve", turnId: "approve", userMessage: { text: "write it" }, metadata: { scenario: "approval", toolMs: 20 } });
    await waitFor("the approval request", async () => (await eventsOfType(turn, "action.required")).length === 1);
    const [asked] = await eventsOfType(turn, "action.required");
    expect(asked.payload).toMatchObject({ requestId: approvalRequestId("approve-call-0"), kind: "tool_approval", toolName: "guarded_write", arguments: { path: "approve.txt" } });
    await cluster.kill("a1");
    await cluster.start("a1", { LEASE_MS: "1500" });
    await expect(client.respond(turn, "approval:nothing", { approved: true })).rejects.toSatisfy((e) => DurableTurnError.isInstance(e) && e.code === "unknown_request");
    await client.respond(turn, approvalRequestId("approve-call-0"), { approved: true });
    expect(await client.outcome(turn)).toEqual({ kind: "completed" });
    const events = await client.readEvents(turn);
    assertLogInvariants(events);
    expect(events.filter((e) => e.type === "action.required")).toHaveLength(1);
    expect(countsOf(turn, "tool-start")).toBe(1);
    expect(countsOf(turn, "tool-end")).toBe(1);
    expect(finalText(events)).toBe("after tool: wrote approve.txt");
  }, 90_000);

  it("a denied call is blocked with the person's reason; a call nobody answers times out as blocked", async () => {
    const denied = await client.start({ sessionId: "s-deny", turnId: "deny", userMessage: { text: "write it" }, metadata: { scenario: "approval" } });
    const silent = await client.start({ sessionId: "s-silent", turnId: "silent", userMessage: { text: "write it" }, metadata: { scenario: "approval", approvalTimeoutMs: 500 } });
    await waitFor("the approval request", async () => (await eventsOfType(denied, "action.required")).length === 1);
    await client.respond(denied, approvalRequestId("deny-call-0"), { approved: false, reason: "Not in production." });
    expect(await client.outcome(denied)).toEqual({ kind: "completed" });
    expect(await client.outcome(silent)).toEqual({ kind: "completed" });
    for (const turn of [denied, silent]) {
      const events = await client.readEvents(turn);
      assertLogInvariants(events);
      expect(toolStatuses(events)).toEqual(["preparing", "failed"]);
      expect(countsOf(turn, "tool-start")).toBe(0);
    }
    expect(finalText(await client.readEvents(denied))).toBe("after tool: Not in production.");
    expect(finalText(await client.readEvents(silent))).toMatch(/^after tool: Nobody approved this call within 500/);
  }, 60_000);
});

describe("steering", () => {
  it("a message steered from another process reaches the next step boundary and is recorded; a finished turn refuses more", async () => {
    const turn = await client.start({ sessionId: "s-steer", turnId: "steer", userMessage: { text: "write it" }, metadata: { scenario: "steer", toolMs: 1500 } });
    await waitFor("the tool call started", () => countsOf(turn, "tool-start") === 1);
    expect(await client.steer(turn, { text: "steer: use the left folder" })).toEqual({ accepted: true });
    expect(await client.outcome(turn)).toEqual({ kind: "completed" });
    const events = await client.readEvents(turn);
    assertLogInvariants(events);
    expect(finalText(events)).toBe("heard steer: use the left folder");
    const received = events.filter((e) => e.type === "debug.trace" && e.payload.phase === "durable.steering");
    expect(received.map((e) => e.type === "debug.trace" && e.payload.attrs?.text)).toEqual(["steer: use the left folder"]);
    expect(await client.steer(turn, { text: "too late" })).toEqual({ accepted: false });
    await expect(client.steer({ sessionId: "s-steer", turnId: "nope" }, { text: "x" })).rejects.toSatisfy((e) => DurableTurnError.isInstance(e) && e.code === "unknown_turn");
  }, 60_000);
});

describe("abort", () => {
  it("aborts a streaming response from another process: outcome aborted, one terminal event", async () => {
    const turn = await client.start({ sessionId: "s-abort", turnId: "abort", userMessage: { text: "talk" }, metadata: { scenario: "stream", deltas: 200, delayMs: 30 } });
    await waitFor("streamed deltas", async () => (await eventsOfType(turn, "stream.resp")).length >= 5);
    await client.abort(turn);
    expect(await client.outcome(turn)).toEqual({ kind: "aborted" });
    const events = await client.readEvents(turn);
    assertLogInvariants(events);
    expect(events.at(-1)).toMatchObject({ type: "session.status", payload: { status: "aborted" } });
  }, 60_000);

  it("aborts a turn waiting for approval: the call is answered, never run", async () => {
    const turn = await client.start({ sessionId: "s-abort-wait", turnId: "abort-wait", userMessage: { text: "write it" }, metadata: { scenario: "approval" } });
    await waitFor("the approval request", async () => (await eventsOfType(turn, "action.required")).length === 1);
    await client.abort(turn);
    expect(await client.outcome(turn)).toEqual({ kind: "aborted" });
    const events = await client.readEvents(turn);
    assertLogInvariants(events);
    expect(toolStatuses(events)).toEqual(["preparing", "failed"]);
    expect(countsOf(turn, "tool-start")).toBe(0);
  }, 60_000);
});
