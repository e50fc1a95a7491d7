/**
 * A hook that throws, at each seam: the eight `PiTurnHooks` of a
 * turn, then the loop callbacks of an `Agent`. Every run is first checked
 * with every invariant in the fuzz README (see `fault-harness.ts`); each test then
 * asserts how that seam fails safe: hooks that decide what
 * is sent fail closed, observers are ignored, step-end failures are reported.
 */
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import type { AgentTool } from "@turnkit/agent-loop";
import { response, text, toolCall } from "@turnkit/agent-loop/testing";
import { type PiTurnHooks, defineRuntimeTool } from "@turnkit/agent-core";
import { ErrorCode } from "@turnkit/protocol";
import { runAgentFault, runTurnFault, textOf, toolResults } from "../support/fault-harness.js";

const parameters = Type.Object({ value: Type.Optional(Type.String()) });

/** One tool call, then a final answer: every seam of a turn is reached. */
const script = () => [
  response([text("calling echo"), toolCall("echo", { value: "hi" }, { id: "c1" })]),
  "final answer",
];

function turnWithFailingHook(hooks: PiTurnHooks) {
  const executed: string[] = [];
  const echo = defineRuntimeTool({
    name: "echo",
    description: "echo",
    parameters,
    executionMode: "parallel",
    execute: (ctx, input) => {
      executed.push(ctx.toolCallId);
      return { content: [{ type: "text", text: `echo ${input.value}` }] };
    },
  });
  return runTurnFault({ script: script(), tools: [echo], input: { hooks } }).then((run) => ({ ...run, executed }));
}

const fail = (seam: string) => () => {
  throw new Error(`${seam} failed`);
};

describe("a PiTurnHooks hook that throws", () => {
  it("beforeLlmCallHook throws: the turn fails closed before any model request", async () => {
    const run = await turnWithFailingHook({ beforeLlmCallHook: fail("beforeLlmCallHook") });
    expect(run.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Hook } });
    expect(run.model.requests).toHaveLength(0);
    expect(run.executed).toEqual([]);
  });

  it("onLlmCallPreparedHook throws: ignored, the turn completes", async () => {
    const run = await turnWithFailingHook({ onLlmCallPreparedHook: fail("onLlmCallPreparedHook") });
    expect(run.outcome).toEqual({ kind: "completed" });
    expect(run.model.requests).toHaveLength(2);
    expect(run.executed).toEqual(["c1"]);
  });

  it("afterLlmCallHook throws: the response's tool calls are stripped and the turn fails", async () => {
    const run = await turnWithFailingHook({ afterLlmCallHook: fail("afterLlmCallHook") });
    expect(run.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Hook } });
    expect(run.executed).toEqual([]);
    expect(run.model.requests).toHaveLength(1);
    const assistant = run.stored.find((message) => message.role === "assistant");
    expect(assistant?.role === "assistant" && assistant.content.some((block) => block.type === "toolCall")).toBe(false);
  });

  it("beforeToolCallHook throws: that call is blocked with an error result, the turn goes on", async () => {
    const run = await turnWithFailingHook({ beforeToolCallHook: fail("beforeToolCallHook") });
    expect(run.outcome).toEqual({ kind: "completed" });
    expect(run.executed).toEqual([]);
    const [result] = toolResults(run.stored);
    expect(result).toMatchObject({ toolCallId: "c1", isError: true });
    expect(textOf(result)).toContain("beforeToolCallHook failed");
  });

  it("onToolExecutionStartHook throws: ignored, the tool runs", async () => {
    const run = await turnWithFailingHook({ onToolExecutionStartHook: fail("onToolExecutionStartHook") });
    expect(run.outcome).toEqual({ kind: "completed" });
    expect(run.executed).toEqual(["c1"]);
    expect(toolResults(run.stored)).toMatchObject([{ toolCallId: "c1", isError: false }]);
  });

  it("afterToolCallHook throws: the result becomes an error result, the turn goes on", async () => {
    const run = await turnWithFailingHook({ afterToolCallHook: fail("afterToolCallHook") });
    expect(run.outcome).toEqual({ kind: "completed" });
    expect(run.executed).toEqual(["c1"]);
    const [result] = toolResults(run.stored);
    expect(result).toMatchObject({ toolCallId: "c1", isError: true });
    expect(textOf(result)).toContain("afterToolCallHook failed");
  });

  it("onHistoryChangedHook throws: the turn fails, nothing is silently lost", async () => {
    const run = await turnWithFailingHook({ onHistoryChangedHook: fail("onHistoryChangedHook") });
    expect(run.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Hook } });
    expect(run.events.filter((event) => event.type === "message.persisted")).toHaveLength(0);
  });

  it("onStepEndHook throws: reported as a debug.trace error, the turn completes", async () => {
    const run = await turnWithFailingHook({ onStepEndHook: fail("onStepEndHook") });
    expect(run.outcome).toEqual({ kind: "completed" });
    expect(run.traces.some((trace) => trace.level === "error" && trace.message.includes("onStepEndHook failed"))).toBe(
      true,
    );
    expect(run.model.requests).toHaveLength(2);
  });
});

function echoTool(executed: string[]): AgentTool<typeof parameters> {
  return {
    name: "echo",
    label: "echo",
    description: "echo",
    parameters,
    execute: async (id, params) => {
      executed.push(id);
      return { content: [{ type: "text", text: `echo ${params.value}` }], details: {} };
    },
  };
}

describe("an Agent loop callback that throws", () => {
  it("beforeToolCall throws: an error result for that call (behaviour L5)", async () => {
    const executed: string[] = [];
    const run = await runAgentFault({
      script: script(),
      tools: [echoTool(executed)],
      options: { beforeToolCall: async () => fail("beforeToolCall")() },
    });
    expect(executed).toEqual([]);
    expect(toolResults(run.transcript)).toMatchObject([{ toolCallId: "c1", isError: true }]);
    expect(run.last).toMatchObject({ role: "assistant", stopReason: "stop" });
  });

  it("afterToolCall throws: an error result for that call (behaviour L5)", async () => {
    const executed: string[] = [];
    const run = await runAgentFault({
      script: script(),
      tools: [echoTool(executed)],
      options: { afterToolCall: async () => fail("afterToolCall")() },
    });
    expect(executed).toEqual(["c1"]);
    expect(toolResults(run.transcript)).toMatchObject([{ toolCallId: "c1", isError: true }]);
  });

  it("onToolExecutionStart throws: ignored, the tool runs", async () => {
    const executed: string[] = [];
    const run = await runAgentFault({
      script: script(),
      tools: [echoTool(executed)],
      options: { onToolExecutionStart: fail("onToolExecutionStart") },
    });
    expect(executed).toEqual(["c1"]);
    expect(toolResults(run.transcript)).toMatchObject([{ toolCallId: "c1", isError: false }]);
  });

  it("shouldStopAfterTurn throws: the run ends with an error message (behaviour L9)", async () => {
    const run = await runAgentFault({
      script: script(),
      tools: [echoTool([])],
      options: { shouldStopAfterTurn: fail("shouldStopAfterTurn") },
    });
    expect(run.last).toMatchObject({
      role: "assistant",
      stopReason: "error",
      errorMessage: "shouldStopAfterTurn failed",
    });
    expect(run.model.requests).toHaveLength(1);
  });

  it("shouldStopAfterSteering throws: the run ends with an error message (behaviour L9)", async () => {
    const run = await runAgentFault({
      script: script(),
      tools: [echoTool([])],
      options: { shouldStopAfterSteering: fail("shouldStopAfterSteering") },
      onEvent: (event, _index, agent) => {
        if (event.type === "tool_execution_end") agent.steer({ role: "user", content: "steering", timestamp: 1 });
      },
    });
    expect(run.last).toMatchObject({
      role: "assistant",
      stopReason: "error",
      errorMessage: "shouldStopAfterSteering failed",
    });
  });

  it("transformContext throws: the request fails as an error message, nothing is sent", async () => {
    const run = await runAgentFault({
      script: script(),
      options: { transformContext: async () => fail("transformContext")() },
    });
    expect(run.model.requests).toHaveLength(0);
    expect(run.last).toMatchObject({ role: "assistant", stopReason: "error", errorMessage: "transformContext failed" });
  });

  it("convertToLlm throws: the request fails as an error message, nothing is sent", async () => {
    const run = await runAgentFault({ script: script(), options: { convertToLlm: fail("convertToLlm") } });
    expect(run.model.requests).toHaveLength(0);
    expect(run.last).toMatchObject({ role: "assistant", stopReason: "error", errorMessage: "convertToLlm failed" });
  });

  it("getApiKey throws: the request fails as an error message, nothing is sent", async () => {
    const run = await runAgentFault({ script: script(), options: { getApiKey: fail("getApiKey") } });
    expect(run.model.requests).toHaveLength(0);
    expect(run.last).toMatchObject({ role: "assistant", stopReason: "error", errorMessage: "getApiKey failed" });
  });
});
