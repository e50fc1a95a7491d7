/**
 * Named faults of tools, listeners and the event writer: a tool
 * that never settles until aborted, a tool that calls `onUpdate` after it
 * settled, a listener or event writer that throws, and one that never
 * returns (bounded by the caller's abort). Every run is checked with every
 * invariant in the fuzz README first (see `fault-harness.ts`).
 */
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import type { AgentTool } from "@turnkit/agent-loop";
import { ErrorCode } from "@turnkit/protocol";
import { defineRuntimeTool } from "@turnkit/agent-core";
import { createScriptedModel, createVirtualClock, response, toolCall } from "@turnkit/agent-loop/testing";
import { checkTurnInvariants } from "../../src/observation-checks.js";
import { observeTurn } from "../../src/observe-turn.js";
import { never, runAgentFault, runTurnFault, textOf, toolResults } from "../support/fault-harness.js";

const parameters = Type.Object({});

/** Waits for the run's signal, then rejects: the well-behaved way to be stuck. */
function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, rejectWait) => {
    signal?.addEventListener("abort", () => rejectWait(new Error("stopped by the abort")), { once: true });
  });
}

function agentTool(name: string, execute: AgentTool<typeof parameters>["execute"]): AgentTool<typeof parameters> {
  return { name, label: name, description: name, parameters, executionMode: "parallel", execute };
}

const ok = (text: string) => ({ content: [{ type: "text" as const, text }], details: {} });

describe("tool faults", () => {
  it("Agent: a tool that never settles until aborted", async () => {
    const run = await runAgentFault({
      script: [response([toolCall("stuck", {}, { id: "c1" }), toolCall("quick", {}, { id: "c2" })]), "never requested"],
      tools: [
        agentTool("stuck", (_id, _params, signal) => untilAborted(signal)),
        agentTool("quick", async () => ok("quick done")),
      ],
      at: (agent) => [{ atMs: 60_000, run: () => agent.abort() }],
    });
    expect(run.drives[0]!.endedAt).toBe(60_000);
    expect(toolResults(run.transcript).map((result) => [result.toolCallId, result.isError])).toEqual([
      ["c1", true],
      ["c2", false],
    ]);
    expect(run.model.requests).toHaveLength(1);
    expect(run.events.at(-1)?.type).toBe("agent_end");
  });

  it("PiTurnRunner: a tool that never settles until aborted", async () => {
    const stuck = defineRuntimeTool({
      name: "stuck",
      description: "stuck",
      parameters,
      executionMode: "parallel",
      execute: (_ctx, _input, signal) => untilAborted(signal),
    });
    const run = await runTurnFault({
      script: [response([toolCall("stuck", {}, { id: "c1" })]), "never requested"],
      tools: [stuck],
      at: (controller) => [{ atMs: 60_000, run: () => controller.abort() }],
    });
    expect(run.outcome).toEqual({ kind: "aborted" });
    expect(toolResults(run.stored)).toMatchObject([{ toolCallId: "c1", isError: true }]);
    expect(run.model.requests).toHaveLength(1);
  });

  it("Agent: a tool that calls onUpdate after it settled", async () => {
    let lateCalls = 0;
    const run = await runAgentFault({
      script: [response([toolCall("chatty", {}, { id: "c1" })]), "done"],
      tools: [
        agentTool("chatty", async (_id, _params, _signal, onUpdate) => {
          onUpdate?.({ content: [{ type: "text", text: "working" }], details: {} });
          queueMicrotask(() => {
            lateCalls++;
            onUpdate?.({ content: [{ type: "text", text: "after settling (microtask)" }], details: {} });
          });
          setImmediate(() => {
            lateCalls++;
            onUpdate?.({ content: [{ type: "text", text: "after settling (macrotask)" }], details: {} });
          });
          return ok("chatty done");
        }),
      ],
    });
    expect(lateCalls).toBe(2);
    const updates = run.events.filter((event) => event.type === "tool_execution_update");
    expect(
      updates.map((event) => (event.type === "tool_execution_update" ? textOf(event.partialResult) : "")),
    ).not.toContain("after settling (macrotask)");
    expect(JSON.stringify(run.events)).not.toContain("after settling (macrotask)");
    expect(run.last).toMatchObject({ role: "assistant", stopReason: "stop" });
  });

  it("PiTurnRunner: a tool that calls onUpdate after it settled", async () => {
    const chatty = defineRuntimeTool({
      name: "chatty",
      description: "chatty",
      parameters,
      executionMode: "parallel",
      execute: (_ctx, _input, _signal, onUpdate) => {
        onUpdate({ content: [{ type: "text", text: "working" }] });
        setImmediate(() => onUpdate({ content: [{ type: "text", text: "after settling" }] }));
        return { content: [{ type: "text", text: "chatty done" }] };
      },
    });
    const run = await runTurnFault({
      script: [response([toolCall("chatty", {}, { id: "c1" })]), "done"],
      tools: [chatty],
    });
    expect(run.outcome).toEqual({ kind: "completed" });
    expect(JSON.stringify(run.events)).not.toContain("after settling");
    expect(toolResults(run.stored)).toMatchObject([{ toolCallId: "c1", isError: false }]);
  });
});

describe("listener and event writer faults", () => {
  it("Agent: a listener that throws", async () => {
    const run = await runAgentFault({
      script: [response([toolCall("quick", {}, { id: "c1" })]), "never requested"],
      tools: [agentTool("quick", async () => ok("quick done"))],
      subscribeMore: (agent) =>
        agent.subscribe((event) => {
          if (event.type === "tool_execution_end") throw new Error("the host's listener failed");
        }),
    });
    expect(run.last).toMatchObject({
      role: "assistant",
      stopReason: "error",
      errorMessage: "the host's listener failed",
    });
    expect(toolResults(run.transcript)).toHaveLength(1);
    expect(run.events.filter((event) => event.type === "agent_end")).toHaveLength(1);
  });

  it("Agent: a listener that never returns, bounded by the caller's abort", async () => {
    let stuck = false;
    const run = await runAgentFault({
      script: ["an answer the listener never lets go of"],
      subscribeMore: (agent) =>
        agent.subscribe((event) => {
          if (event.type !== "message_end" || event.message.role !== "assistant") return;
          stuck = true;
          return never();
        }),
      at: (agent) => [{ atMs: 1_000, run: () => agent.abort() }],
    });
    expect(stuck).toBe(true);
    expect(run.drives[0]!.endedAt).toBe(1_000);
    expect(run.events.at(-1)?.type).toBe("agent_end");
    expect(run.agent.state.isStreaming).toBe(false);
  });

  it("PiTurnRunner: an event writer that throws", async () => {
    const run = await runTurnFault({
      script: [response([toolCall("quick", {}, { id: "c1" })]), "never requested"],
      tools: [
        defineRuntimeTool({
          name: "quick",
          description: "quick",
          parameters,
          executionMode: "parallel",
          execute: () => ({ content: [{ type: "text", text: "ok" }] }),
        }),
      ],
      write: (_event, index) => {
        if (index === 3) throw new Error("the host's sink is down");
      },
      check: { writerFails: true },
    });
    expect(run.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Internal } });
    expect(run.outcome.kind === "failed" && run.outcome.message).toContain("the host's sink is down");
    expect(run.statuses.at(-1)).toBe("failed");
  });

  it("PiTurnRunner: an event writer that rejects", async () => {
    const run = await runTurnFault({
      script: ["an answer"],
      write: (_event, index) => (index === 2 ? Promise.reject(new Error("the host's sink rejected")) : undefined),
      check: { writerFails: true },
    });
    expect(run.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Internal } });
    expect(run.statuses.at(-1)).toBe("failed");
  });

  it("PiTurnRunner: an event writer that never returns, bounded by the caller's abort", async () => {
    const run = await runTurnWithHangingWriter({ hangFrom: 4, abortAtMs: 2_000 });
    expect(run.settlements).toHaveLength(1);
    expect(run.drive.endedAt).toBe(2_000);
    expect(run.callerAborted).toBe(true);
    // Events queued behind the stuck call are dropped without a number and announced; the writer is still offered the end of the turn.
    expect(run.events).toHaveLength(7);
    expect(run.events.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(run.events.at(-2)).toMatchObject({
      type: "debug.trace",
      payload: { phase: "events", level: "warn", attrs: { droppedEvents: expect.any(Number) } },
    });
    expect(run.events.at(-1)).toMatchObject({ type: "session.status", payload: { status: run.outcome.kind } });
    // The notice accounts for what is missing, so every invariant of a turn applies.
    checkTurnInvariants(run, { writerMayStall: true });
  });
});

/**
 * A writer that hangs from event `hangFrom` on: the turn runs to its end, but
 * `runTurn` can settle only after the caller's abort (draining
 * after an abort is bounded by the abort grace). History deltas and loop traces queued behind
 * the stuck call never reach the writer; the runner announces them.
 */
async function runTurnWithHangingWriter(options: { hangFrom: number; abortAtMs: number }) {
  const clock = createVirtualClock();
  const model = createScriptedModel(["an answer for a host that stopped listening"], { clock });
  const controller = new AbortController();
  const timer = clock.setTimeout(() => controller.abort(), options.abortAtMs);
  const observation = await observeTurn({
    input: {
      sessionId: "s",
      turnId: "t",
      systemPrompt: "fault test",
      userMessage: { text: "go" },
      llm: { model: model.model, streamFn: model.streamFn },
      llmRetry: false,
      disableBuiltinToolFallback: true,
    },
    clock,
    controller,
    write: (_event, index) => (index < options.hangFrom ? undefined : never()),
    hostTimers: () => [timer],
  });
  const settlement = observation.settlements[0];
  if (settlement?.kind !== "resolved") throw new Error(`runTurn did not resolve: ${String(settlement?.kind)}`);
  return { ...observation, outcome: settlement.outcome };
}
