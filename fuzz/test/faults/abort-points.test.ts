/**
 * Abort at each point of a run: before start, between steps,
 * during streaming, during prepare (inside `beforeToolCall` and inside
 * `prepareArguments`), during execute, and during a retry backoff (virtual
 * clock). Through `Agent` (its `abort()`) and `PiTurnRunner` (the caller's
 * signal). Every run is first checked with every invariant in the fuzz README (one
 * `agent_end` / one outcome and its terminal status, every call answered,
 * nothing left on the signal or the clock); each test then asserts the
 * aborted ending and that no answer follows the abort.
 */
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import type { Agent, AgentTool } from "@turnkit/agent-loop";
import { errorAfter, response, text, toolCall } from "@turnkit/agent-loop/testing";
import { type LlmRetryNotification, type RuntimeTool, defineRuntimeTool } from "@turnkit/agent-core";
import { runAgentFault, runTurnFault, textOf, toolResults } from "../support/fault-harness.js";

const parameters = Type.Object({ value: Type.Optional(Type.String()) });

/** Two calls, then an answer that must never be streamed after an abort. */
const twoCalls = () => [
  response([
    text("calling tools"),
    toolCall("work", { value: "1" }, { id: "c1" }),
    toolCall("work", { value: "2" }, { id: "c2" }),
  ]),
  response("second answer, never shown after an abort"),
];

function agentWork(
  executed: string[],
  options: {
    execute?: (agent: Agent, signal?: AbortSignal) => Promise<void>;
    prepare?: () => void;
    agent?: () => Agent;
    mode?: "parallel" | "sequential";
  } = {},
): AgentTool<typeof parameters> {
  return {
    name: "work",
    label: "work",
    description: "work",
    parameters,
    executionMode: options.mode ?? "parallel",
    ...(options.prepare && {
      prepareArguments: (args: unknown) => {
        options.prepare!();
        return args as { value?: string };
      },
    }),
    execute: async (id, _params, signal) => {
      executed.push(id);
      if (options.execute) await options.execute(options.agent!(), signal);
      return { content: [{ type: "text", text: `${id} done` }], details: {} };
    },
  };
}

function runtimeWork(
  executed: string[],
  options: { execute?: (signal: AbortSignal) => Promise<void>; prepare?: () => void } = {},
): RuntimeTool {
  return defineRuntimeTool({
    name: "work",
    description: "work",
    parameters,
    executionMode: "parallel",
    ...(options.prepare && {
      prepareArguments: (args: unknown) => {
        options.prepare!();
        return args as { value?: string };
      },
    }),
    execute: async (ctx, _input, signal) => {
      executed.push(ctx.toolCallId);
      await options.execute?.(signal);
      return { content: [{ type: "text", text: `${ctx.toolCallId} done` }] };
    },
  });
}

function rejectOnAbort(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((_resolve, rejectWait) => {
    if (signal?.aborted) rejectWait(new Error("aborted"));
    else signal?.addEventListener("abort", () => rejectWait(new Error("aborted")), { once: true });
  });
}

const neverShown = (value: unknown) => expect(JSON.stringify(value)).not.toContain("never shown");

describe("abort: Agent", () => {
  it("before start (at agent_start)", async () => {
    const executed: string[] = [];
    const run = await runAgentFault({
      script: twoCalls(),
      tools: [agentWork(executed)],
      onEvent: (event, _index, agent) => {
        if (event.type === "agent_start") agent.abort();
      },
    });
    expect(run.last).toMatchObject({ role: "assistant", stopReason: "aborted" });
    expect(executed).toEqual([]);
    expect(toolResults(run.transcript)).toEqual([]);
  });

  it("between steps (at the first turn_end)", async () => {
    const executed: string[] = [];
    let turnEnds = 0;
    const run = await runAgentFault({
      script: twoCalls(),
      tools: [agentWork(executed)],
      onEvent: (event, _index, agent) => {
        if (event.type === "turn_end" && ++turnEnds === 1) agent.abort();
      },
    });
    expect(executed).toEqual(["c1", "c2"]);
    expect(run.last).toMatchObject({ role: "assistant", stopReason: "aborted" });
    neverShown(run.transcript);
  });

  it("during streaming (at the first text delta)", async () => {
    const executed: string[] = [];
    const run = await runAgentFault({
      script: twoCalls(),
      tools: [agentWork(executed)],
      onEvent: (event, _index, agent) => {
        if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") agent.abort();
      },
    });
    expect(run.last).toMatchObject({ role: "assistant", stopReason: "aborted" });
    expect("calling tools".startsWith(textOf(run.last))).toBe(true);
    expect(executed).toEqual([]);
    expect(run.model.requests).toHaveLength(1);
  });

  it("during prepare (inside beforeToolCall)", async () => {
    const executed: string[] = [];
    let agentRef!: Agent;
    const run = await runAgentFault({
      script: twoCalls(),
      tools: [agentWork(executed)],
      options: {
        beforeToolCall: async () => {
          agentRef.abort();
          return undefined;
        },
      },
      onEvent: (_event, _index, agent) => void (agentRef = agent),
    });
    expect(executed).toEqual([]);
    expect(toolResults(run.transcript).map((result) => result.isError)).toEqual([true, true]);
    expect(run.model.requests).toHaveLength(1);
  });

  it("during prepare (inside prepareArguments)", async () => {
    const executed: string[] = [];
    let agentRef!: Agent;
    const run = await runAgentFault({
      script: twoCalls(),
      tools: [agentWork(executed, { prepare: () => agentRef.abort() })],
      onEvent: (_event, _index, agent) => void (agentRef = agent),
    });
    expect(executed).toEqual([]);
    expect(toolResults(run.transcript).map((result) => result.isError)).toEqual([true, true]);
    expect(run.model.requests).toHaveLength(1);
  });

  it("during execute", async () => {
    const executed: string[] = [];
    let agentRef!: Agent;
    const run = await runAgentFault({
      script: twoCalls(),
      tools: [
        agentWork(executed, {
          agent: () => agentRef,
          execute: async (agent, signal) => {
            agent.abort();
            await rejectOnAbort(signal);
          },
        }),
      ],
      onEvent: (_event, _index, agent) => void (agentRef = agent),
    });
    // c1 aborts as it starts; the loop starts no tool once aborted, so c2 (due in the same tick) never runs.
    expect(executed).toEqual(["c1"]);
    expect(toolResults(run.transcript).map((result) => result.isError)).toEqual([true, true]);
    expect(run.model.requests).toHaveLength(1);
    neverShown(run.transcript);
  });
});

describe("abort: PiTurnRunner", () => {
  it("before start (the caller's signal already aborted)", async () => {
    const executed: string[] = [];
    const run = await runTurnFault({ script: twoCalls(), tools: [runtimeWork(executed)], abortBeforeStart: true });
    expect(run.outcome).toEqual({ kind: "aborted" });
    expect(run.statuses).toEqual(["running", "aborted"]);
    expect(run.model.requests).toHaveLength(0);
    expect(run.offered).toEqual([]);
  });

  it("between steps (at the first step's turn_end)", async () => {
    const executed: string[] = [];
    const run = await runTurnFault({
      script: twoCalls(),
      tools: [runtimeWork(executed)],
      write: (event, _index, controller) => {
        if (event.type === "debug.trace" && event.payload.message === "turn_end") controller.abort();
      },
    });
    expect(run.outcome).toEqual({ kind: "aborted" });
    expect(executed).toEqual(["c1", "c2"]);
    neverShown(run.events);
    neverShown(run.stored);
  });

  it("during streaming (at the first text chunk)", async () => {
    const run = await runTurnFault({
      script: twoCalls(),
      tools: [runtimeWork([])],
      write: (event, _index, controller) => {
        if (event.type === "stream.resp" && event.payload.chunk.kind === "text") controller.abort();
      },
    });
    expect(run.outcome).toEqual({ kind: "aborted" });
    expect(run.model.requests).toHaveLength(1);
    expect(toolResults(run.stored)).toEqual([]);
    // An aborted message emits no finish chunk.
    expect(run.events.some((event) => event.type === "stream.resp" && event.payload.chunk.kind === "finish")).toBe(
      false,
    );
  });

  it("during prepare (inside beforeToolCallHook)", async () => {
    const executed: string[] = [];
    let controllerRef!: AbortController;
    const run = await runTurnFault({
      script: twoCalls(),
      tools: [runtimeWork(executed)],
      input: { hooks: { beforeToolCallHook: () => void controllerRef.abort() } },
      write: (_event, _index, controller) => void (controllerRef = controller),
    });
    expect(run.outcome).toEqual({ kind: "aborted" });
    expect(executed).toEqual([]);
    expect(toolResults(run.stored).map((result) => result.isError)).toEqual([true, true]);
    expect(run.model.requests).toHaveLength(1);
  });

  it("during prepare (inside prepareArguments)", async () => {
    const executed: string[] = [];
    let controllerRef!: AbortController;
    const run = await runTurnFault({
      script: twoCalls(),
      tools: [runtimeWork(executed, { prepare: () => controllerRef.abort() })],
      write: (_event, _index, controller) => void (controllerRef = controller),
    });
    expect(run.outcome).toEqual({ kind: "aborted" });
    expect(executed).toEqual([]);
    expect(toolResults(run.stored).map((result) => result.isError)).toEqual([true, true]);
  });

  it("during execute", async () => {
    const executed: string[] = [];
    let controllerRef!: AbortController;
    const run = await runTurnFault({
      script: twoCalls(),
      tools: [
        runtimeWork(executed, {
          execute: (signal) => {
            controllerRef.abort();
            return rejectOnAbort(signal);
          },
        }),
      ],
      write: (_event, _index, controller) => void (controllerRef = controller),
    });
    expect(run.outcome).toEqual({ kind: "aborted" });
    // c1 aborts as it starts; the loop starts no tool once aborted, so c2 (due in the same tick) never runs.
    expect(executed).toEqual(["c1"]);
    expect(toolResults(run.stored).map((result) => result.isError)).toEqual([true, true]);
    expect(run.model.requests).toHaveLength(1);
  });

  it("during backoff (virtual clock)", async () => {
    const notices: LlmRetryNotification[] = [];
    // The first attempt fails with a retryable 503 before any output; the wait is 1000 ms (jitter 0.5 of base 1000).
    const run = await runTurnFault({
      script: [errorAfter(1, "503 Service Unavailable"), "answer after the retry, never shown"],
      input: { llmRetry: { maxRetries: 3, baseDelayMs: 1_000, observer: (notice) => void notices.push(notice) } },
      at: (controller) => [{ atMs: 400, run: () => controller.abort() }],
    });
    expect(run.outcome).toEqual({ kind: "aborted" });
    expect(run.drive.endedAt).toBe(400);
    expect(run.model.requests).toHaveLength(1);
    expect(notices.map((notice) => notice.type)).toEqual(["waiting", "cancelled"]);
    neverShown(run.events);
  });
});
