/*
 * Sub-agent calls declared `executionMode: "parallel"` in a durable turn,
 * with the worker in the test process: two calls of one response run at
 * the same time (each child's tool waits for the other child's, so neither
 * ends unless both run), a replay of the whole turn from its records logs
 * nothing again, and approvals asked by two children at once reach the
 * child that asked. The crash cases are in crash-asks-and-sub-agents.
 */
import { Type } from "@sinclair/typebox";
import { defineRuntimeTool, defineSubAgent } from "@turnkit/agent-core";
import { assertRuntimeEventSequence, createScriptedModel, response, toolCall } from "@turnkit/agent-core/testing";
import type { StreamFn } from "@turnkit/agent-loop";
import type { RuntimeEvent } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import { type BuildDurableTurn, type DurableTurnRef, durableTool } from "../src/index.js";
import { assertLogInvariants } from "./support/log-assertions.js";
import { useInProcessWorker } from "./support/in-process-worker.js";
import { waitFor } from "./support/worker-cluster.js";

/** The children whose `meet` tool has started, by parent turn: each waits (at most 5 s) for the other. */
const arrived = new Map<string, Set<string>>();

/** Answers "met" when the other child's `meet` started while this one waited, "alone" otherwise. */
const meet = defineRuntimeTool({
  name: "meet",
  description: "Waits for the other sub-agent call",
  parameters: Type.Object({}),
  execute: async (ctx) => {
    const [parent, call] = ctx.turnId.split("/") as [string, string];
    const seen = arrived.get(parent) ?? new Set<string>();
    arrived.set(parent, seen.add(call));
    const deadline = Date.now() + 5_000;
    while (seen.size < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    return { content: [{ type: "text", text: seen.size < 2 ? `${call} alone` : `${call} met` }] };
  },
});

/** The children whose `hold` tool has started, by parent turn. */
const holding = new Map<string, Set<string>>();

/** Runs until its signal fires (the turn's abort), then says so. */
const hold = defineRuntimeTool({
  name: "hold",
  description: "Holds until stopped",
  parameters: Type.Object({}),
  execute: async (ctx, _input, signal) => {
    const [parent, call] = ctx.turnId.split("/") as [string, string];
    holding.set(parent, (holding.get(parent) ?? new Set<string>()).add(call));
    await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    return { content: [{ type: "text", text: `${call} stopped` }], isError: true };
  },
});

const deploy = defineRuntimeTool({
  name: "deploy",
  description: "Deploys",
  parameters: Type.Object({}),
  execute: async () => ({ content: [{ type: "text", text: "deployed" }] }),
});

/** A parallel sub-agent: its model calls `tool` once (the same call id in every child), then answers with the result. */
function helper(tool: string) {
  const streamFn: StreamFn = (model, context, options) => {
    const last = context.messages.at(-1);
    const entry =
      last?.role === "toolResult"
        ? response(`helper saw: ${last.content.map((b) => (b.type === "text" ? b.text : "")).join("")}`)
        : response([toolCall(tool, {}, { id: "child-call" })]);
    return createScriptedModel([entry]).streamFn(model, context, options);
  };
  return defineSubAgent({
    name: `${tool}_helper`,
    description: `Calls ${tool}`,
    systemPrompt: "You help.",
    llm: { model: createScriptedModel([]).model, streamFn },
    tools: [meet, hold, durableTool(deploy, { requiresApproval: true })],
    llmRetry: false,
    executionMode: "parallel",
  });
}

/** The parent calls `<metadata.tool>_helper` twice in one response, then answers with what both found. */
const buildTurn: BuildDurableTurn = (request) => {
  const tool = String(request.metadata?.tool);
  const streamFn: StreamFn = (model, context, options) => {
    const results = context.messages.filter((m) => m.role === "toolResult");
    const entry =
      results.length > 0
        ? `found: ${results.map((m) => m.content.map((b) => (b.type === "text" ? b.text : "")).join("")).join(" | ")}`
        : response([
            toolCall(`${tool}_helper`, { task: "one" }, { id: `${request.turnId}-a` }),
            toolCall(`${tool}_helper`, { task: "two" }, { id: `${request.turnId}-b` }),
          ]);
    return createScriptedModel([entry]).streamFn(model, context, options);
  };
  return {
    systemPrompt: "You are a test assistant.",
    llm: { model: createScriptedModel([]).model, streamFn },
    llmRetry: false,
    tools: [helper("meet"), helper("deploy"), helper("hold")],
  };
};

const fixture = useInProcessWorker({ workerId: "in-test-parallel-sub-agents", concurrency: 2, buildTurn });

/** The child turn ids of the events, each with its `origin.seq`s in log order. */
function childSequences(events: RuntimeEvent[]): Map<string, number[]> {
  const sequences = new Map<string, number[]>();
  for (const event of events)
    if (event.origin)
      sequences.set(event.origin.turnId, [...(sequences.get(event.origin.turnId) ?? []), event.origin.seq]);
  return sequences;
}

/** The statuses the turn's own stream gave the call `callId`, in log order. */
function callStatuses(events: RuntimeEvent[], callId: string): string[] {
  return events.flatMap((e) =>
    !e.origin &&
    e.type === "stream.resp" &&
    e.payload.chunk.kind === "tool_call" &&
    e.payload.chunk.toolCallId === callId
      ? [e.payload.chunk.status]
      : [],
  );
}

function finalText(events: RuntimeEvent[]): string {
  const persisted = events.filter((e) => !e.origin && e.type === "message.persisted").at(-1);
  return JSON.stringify(persisted?.payload ?? "");
}

async function start(turnId: string, tool: string): Promise<DurableTurnRef> {
  return fixture.worker.client.start({
    sessionId: `s-${turnId}`,
    turnId,
    userMessage: { text: "go" },
    metadata: { tool },
  });
}

describe("parallel sub-agent calls in a durable turn", () => {
  it("run at the same time: each child's tool finds the other's running; a replay from the records logs nothing again", async () => {
    const turn = await start("pm", "meet");
    expect(await fixture.worker.client.outcome(turn)).toMatchObject({ kind: "completed" });
    const events = await fixture.worker.client.readEvents(turn);
    assertLogInvariants(events);
    expect(assertRuntimeEventSequence(events)).toBe("completed");
    expect(finalText(events)).toContain("found: helper saw: pm-a met | helper saw: pm-b met");
    // The turn's own stream shows each call prepared, started and finished, once.
    for (const call of ["pm-a", "pm-b"])
      expect(callStatuses(events, call)).toEqual(["preparing", "started", "finished"]);
    // Each child's events are numbered in its own sequence, 1, 2, 3, ..., whatever the interleaving.
    const sequences = childSequences(events);
    expect([...sequences.keys()].sort()).toEqual(["pm/pm-a", "pm/pm-b"]);
    for (const seqs of sequences.values()) expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    // Each child's messages are numbered in the child turn.
    const messageIds = new Set(
      events.flatMap((e) => (e.origin && e.type === "stream.resp" ? [e.payload.messageId] : [])),
    );
    expect([...messageIds].sort()).toEqual([
      expect.stringMatching(/\/pm-a#m1$/),
      expect.stringMatching(/\/pm-a#m2$/),
      expect.stringMatching(/\/pm-b#m1$/),
      expect.stringMatching(/\/pm-b#m2$/),
    ]);

    // The whole turn again from its records: the steps are called in the same order (or DBOS would refuse a
    // step's record), and the log is left as it was.
    await fixture.replay(turn);
    expect(await fixture.worker.client.readEvents(turn)).toEqual(events);
  }, 60_000);

  it("approvals asked by two children at once: both wait together, and each answer reaches the child that asked", async () => {
    const turn = await start("pd", "deploy");
    const approvals = () =>
      fixture.worker.client.readEvents(turn).then((events) => events.filter((e) => e.type === "action.required"));
    // Both children ask before either is answered.
    await waitFor("both approvals", async () => (await approvals()).length === 2);
    const asked = (await approvals()).map((e) => e.payload.requestId).sort();
    expect(asked).toEqual(["approval:pd-a/child-call", "approval:pd-b/child-call"]);
    await fixture.worker.client.respond(turn, "approval:pd-b/child-call", { approved: false, reason: "not b" });
    await fixture.worker.client.respond(turn, "approval:pd-a/child-call", { approved: true });
    expect(await fixture.worker.client.outcome(turn)).toMatchObject({ kind: "completed" });
    const events = await fixture.worker.client.readEvents(turn);
    assertLogInvariants(events);
    expect(assertRuntimeEventSequence(events)).toBe("completed");
    expect(finalText(events)).toContain("found: helper saw: deployed | helper saw: not b");
    // Each approval's events are its child's.
    for (const event of events.filter((e) => e.type === "action.required"))
      expect(event.origin?.turnId).toBe(
        `pd/${(event.payload.requestId as string).slice("approval:".length, -"/child-call".length)}`,
      );
  }, 60_000);

  it("an abort while both children run their tools stops both; the turn ends aborted, and a replay takes the same path", async () => {
    const turn = await start("ph", "hold");
    await waitFor("both children's tools running", async () => holding.get("ph")?.size === 2);
    await fixture.worker.client.abort(turn);
    expect(await fixture.worker.client.outcome(turn)).toMatchObject({ kind: "aborted" });
    const events = await fixture.worker.client.readEvents(turn);
    assertLogInvariants(events);
    expect(assertRuntimeEventSequence(events)).toBe("aborted");
    // Each call is answered: the turn's stream closes both, whatever the children did after the abort.
    for (const call of ["ph-a", "ph-b"]) expect(callStatuses(events, call).at(-1)).toMatch(/finished|failed/);
    await fixture.replay(turn);
    expect(await fixture.worker.client.readEvents(turn)).toEqual(events);
  }, 60_000);
});
