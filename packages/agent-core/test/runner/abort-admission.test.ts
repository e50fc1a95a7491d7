/**
 * A tool never starts once the caller aborted, even when a hook that admits
 * it is still pending at the abort and answers afterwards: a permission
 * prompt that returns "allow" as the user presses Esc, or an approval service
 * that ignores the signal. Every call of the step is answered as aborted and
 * the turn ends aborted. And the other way round: a tool that did run is
 * never reported as "not executed".
 */
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { defineRuntimeTool, type BeforeToolCallDecision, type RuntimeTool } from "../../src/index.js";
import {
  assertRuntimeEventSequence,
  assertToolCallsAnswered,
  runScriptedTurn,
  type ScriptedTurnResult,
} from "../../src/testing/index.js";

const NOT_EXECUTED_ABORTED = "Tool call was not executed: the run was aborted.";

/** A tool that records each start and answers at once. */
function countingTool(name: string, executionMode: "sequential" | "parallel"): RuntimeTool & { starts: number } {
  const tool = defineRuntimeTool({
    name,
    description: `Test tool ${name}`,
    parameters: { type: "object", properties: {} } as const,
    executionMode,
    execute: async () => {
      counted.starts += 1;
      return { content: [{ type: "text", text: `${name} ran` }] };
    },
  });
  const counted = Object.assign(tool, { starts: 0 });
  return counted;
}

/** Text and error flag of every tool result the host stored. */
function toolResults(turn: ScriptedTurnResult): [string, boolean, string][] {
  return turn.transcript.flatMap((message) => {
    if (message.role !== "toolResult") return [];
    const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    return [[message.toolCallId, message.isError, text] as [string, boolean, string]];
  });
}

/** Final status of each tool call's chunk stream, in emission order. */
function finalToolStatuses(events: ScriptedTurnResult["events"]): string[] {
  return events.flatMap((event) =>
    event.type === "stream.resp" &&
    event.payload.chunk.kind === "tool_call" &&
    ["finished", "failed"].includes(event.payload.chunk.status)
      ? [`${event.payload.chunk.toolCallId}:${event.payload.chunk.status}`]
      : [],
  );
}

/**
 * Resolves a timer turn after `signal` fired, whatever happened in between:
 * a hook that ignores the signal and answers once the abort has happened.
 * Waiting for the abort itself (not a sleep that should outlast it) keeps
 * the order fixed on a loaded machine, where a 20 ms sleep started before
 * a 1 ms abort timer could run out first.
 */
const answerAfterAbort = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const later = () => setTimeout(resolve, 0);
    if (signal.aborted) later();
    else signal.addEventListener("abort", later, { once: true });
  });

const twoCalls = (name: string) => [
  response([toolCall(name, {}, { id: "a" }), toolCall(name, {}, { id: "b" })]),
  "never requested",
];

async function runChecked(options: Parameters<typeof runScriptedTurn>[0]): Promise<ScriptedTurnResult> {
  const turn = await runScriptedTurn(options);
  assertRuntimeEventSequence(turn.events);
  assertToolCallsAnswered(turn.transcript);
  return turn;
}

describe("tool-starts-after-abort-in-admission (PiTurnRunner)", () => {
  it("an onToolExecutionStartHook pending when the caller aborts, resolving afterwards: the tool never runs", async () => {
    const controller = new AbortController();
    const tool = countingTool("fetch", "parallel");
    let pending = 0;
    const turn = await runChecked({
      script: twoCalls("fetch"),
      input: {
        signal: controller.signal,
        tools: [tool],
        hooks: {
          onToolExecutionStartHook: async () => {
            pending += 1;
            if (pending === 2) setTimeout(() => controller.abort(), 1);
            // Ignores the signal: resolves after the abort.
            await answerAfterAbort(controller.signal);
          },
        },
      },
    });
    expect(pending).toBe(2);
    expect(tool.starts).toBe(0);
    expect(turn.outcome.kind).toBe("aborted");
    expect(turn.requests).toHaveLength(1);
    expect(toolResults(turn)).toEqual([
      ["a", true, NOT_EXECUTED_ABORTED],
      ["b", true, NOT_EXECUTED_ABORTED],
    ]);
    expect(finalToolStatuses(turn.events)).toEqual(["a:failed", "b:failed"]);
  });

  it("a sequential batch's beforeToolCallHook (a permission prompt) pending when the caller aborts, answering allow afterwards: the tool never runs", async () => {
    const controller = new AbortController();
    const tool = countingTool("write", "sequential");
    const asked: string[] = [];
    const turn = await runChecked({
      script: twoCalls("write"),
      input: {
        signal: controller.signal,
        tools: [tool],
        hooks: {
          beforeToolCallHook: async (event): Promise<BeforeToolCallDecision> => {
            asked.push(event.toolCall.id);
            setTimeout(() => controller.abort(), 1);
            await answerAfterAbort(controller.signal);
            return { block: false };
          },
        },
      },
    });
    expect(asked).toEqual(["a"]);
    expect(tool.starts).toBe(0);
    expect(turn.outcome.kind).toBe("aborted");
    expect(turn.requests).toHaveLength(1);
    expect(toolResults(turn)).toEqual([
      ["a", true, NOT_EXECUTED_ABORTED],
      ["b", true, NOT_EXECUTED_ABORTED],
    ]);
    expect(finalToolStatuses(turn.events)).toEqual(["a:failed", "b:failed"]);
  });

  it("a tool that ran is never reported as not executed: an afterToolCallHook that ignores the abort past the grace leaves the tool's own result", async () => {
    const controller = new AbortController();
    let ran = 0;
    const slow = defineRuntimeTool({
      name: "slow",
      description: "Test tool slow",
      parameters: { type: "object", properties: {} } as const,
      executionMode: "sequential",
      execute: async (_ctx, _input, signal) => {
        ran += 1;
        setTimeout(() => controller.abort(), 1);
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        return { content: [{ type: "text", text: "slow stopped early" }], isError: true };
      },
    });
    const turn = await runChecked({
      script: [response([toolCall("slow", {}, { id: "a" })]), "never requested"],
      input: {
        signal: controller.signal,
        tools: [slow],
        hooks: { afterToolCallHook: () => new Promise(() => {}) },
      },
    });
    expect(ran).toBe(1);
    expect(turn.outcome.kind).toBe("aborted");
    expect(toolResults(turn)).toEqual([["a", true, "slow stopped early"]]);
  });
});
