/**
 * A turn's `hookTimeoutMs` bounds the hooks of its sub-agents too: a
 * sub-agent's hook that never answers ends that child by its hook kind's
 * rule, and the parent's call gets an error result naming the hook,
 * instead of the whole turn waiting for an abort that may never come.
 * Time is a self-advancing virtual clock: nothing here waits in real time.
 */
import { describe, expect, it } from "vitest";
import { defineSubAgent, TurnkitConfigError } from "../../src/index.js";
import {
  assertRuntimeEventSequence,
  assertToolCallsAnswered,
  createScriptedModel,
  createVirtualClock,
  response,
  runScriptedTurn,
  toolCall,
} from "../../src/testing/index.js";

const never = () => new Promise<never>(() => {});

function explorer(hooks: Parameters<typeof defineSubAgent>[0]["hooks"], hookTimeoutMs?: number) {
  const child = createScriptedModel(["found it"]);
  const tool = defineSubAgent({
    name: "explore",
    description: "Searches the workspace",
    systemPrompt: "You explore.",
    llm: { model: child.model, streamFn: child.streamFn },
    llmRetry: false,
    hooks,
    ...(hookTimeoutMs !== undefined && { hookTimeoutMs }),
  });
  return { child, tool };
}

async function parentTurn(tool: ReturnType<typeof explorer>["tool"], hookTimeoutMs: number | undefined) {
  const clock = createVirtualClock({ autoAdvance: true });
  const turn = await runScriptedTurn({
    script: [response([toolCall("explore", { task: "find the config" })]), "done"],
    runnerOptions: { clock },
    input: { tools: [tool], ...(hookTimeoutMs !== undefined && { hookTimeoutMs }) },
  });
  assertRuntimeEventSequence(turn.events);
  assertToolCallsAnswered(turn.transcript);
  const result = turn.transcript.find((message) => message.role === "toolResult");
  const resultText =
    result?.role === "toolResult"
      ? result.content.map((block) => (block.type === "text" ? block.text : "")).join("")
      : "";
  return { turn, resultText, pendingTimers: clock.pendingCount() };
}

describe("a sub-agent's hook that never answers", () => {
  it("fails the child after the parent's hookTimeoutMs: the call's error result names the hook and the parent goes on", async () => {
    const { child, tool } = explorer({ beforeLlmCallHook: never });
    const { turn, resultText, pendingTimers } = await parentTurn(tool, 2_000);
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(resultText).toContain('Sub-agent "explore" failed (hook)');
    expect(resultText).toContain("beforeLlmCallHook did not answer within 2000 ms");
    expect(child.requests).toHaveLength(0);
    expect(pendingTimers).toBe(0);
  });

  it("takes the sub-agent's own hookTimeoutMs over the parent's, and bounds it when the parent has none", async () => {
    const own = explorer({ beforeToolCallHook: never, beforeLlmCallHook: never }, 500);
    const { resultText } = await parentTurn(own.tool, 2_000);
    expect(resultText).toContain("beforeLlmCallHook did not answer within 500 ms");
    const alone = explorer({ beforeLlmCallHook: never }, 700);
    expect((await parentTurn(alone.tool, undefined)).resultText).toContain(
      "beforeLlmCallHook did not answer within 700 ms",
    );
  });

  it("refuses a hookTimeoutMs that is no positive integer where the sub-agent is defined, naming the field", () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "100"]) {
      expect(() => explorer({}, bad as number), String(bad)).toThrow(TurnkitConfigError);
      expect(() => explorer({}, bad as number), String(bad)).toThrow(/sub-agent "explore": hookTimeoutMs must be/);
    }
  });
});
