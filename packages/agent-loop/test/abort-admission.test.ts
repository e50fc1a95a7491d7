import type { ToolResultMessage } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { type AgentMessage, type AgentTool } from "../src/index.js";
import { ABORT_GRACE_MS, ToolResultText } from "../src/internal.js";
import { response, toolCall } from "../src/testing/index.js";
import { deferred, firstText, runLoopScenario, testTool, textResult } from "./support/scenario.js";
import { onFakeTime } from "./support/fake-time.js";

/**
 * Once the run's signal has fired, no tool starts: the loop checks the abort
 * after every awaited step of a call's admission (`tool_execution_start`
 * listeners, argument preparation, `beforeToolCall`, `onToolExecutionStart`)
 * and in the tick that would start the tool. The hooks below ignore the
 * signal and answer "allow" after the abort, as a permission prompt does
 * when the user answers it while pressing Esc.
 */

function resultsOf(messages: readonly AgentMessage[]): [string, boolean, string | undefined][] {
  return messages
    .filter((message): message is ToolResultMessage => message.role === "toolResult")
    .map((result) => [result.toolCallId, result.isError, firstText(result)]);
}

/** A tool that records each start, then answers at once. */
function recordingTool(
  name: string,
  started: string[],
  options: { executionMode?: "sequential" } = {},
): AgentTool<any> {
  return testTool(name, {
    ...options,
    execute: async (id) => {
      started.push(id);
      return textResult(`${name} ran`);
    },
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const twoCalls = () => [
  response([toolCall("run", {}, { id: "a" }), toolCall("run", {}, { id: "b" })]),
  "never requested",
];

describe("tool-starts-after-abort-in-admission", () => {
  it("sequential: a beforeToolCall pending at the abort answers allow afterwards; no tool starts, every call is answered aborted", async () => {
    const controller = new AbortController();
    const started: string[] = [];
    const asked: string[] = [];
    const { messages, scripted, trace } = await runLoopScenario({
      script: twoCalls(),
      tools: [recordingTool("run", started)],
      signal: controller.signal,
      config: {
        toolExecution: "sequential",
        beforeToolCall: async ({ toolCall: call }) => {
          asked.push(call.id);
          setTimeout(() => controller.abort(), 1);
          await sleep(10);
          return { block: false };
        },
      },
    });
    expect(started).toEqual([]);
    expect(asked).toEqual(["a"]);
    expect(scripted.requests).toHaveLength(1);
    expect(resultsOf(messages)).toEqual([
      ["a", true, ToolResultText.aborted],
      ["b", true, ToolResultText.aborted],
    ]);
    expect(trace.slice(-10)).toEqual([
      "tool_execution_start:a",
      "tool_execution_end:a:error",
      "message_start:toolResult:a:error",
      "message_end:toolResult:a:error",
      "tool_execution_start:b",
      "tool_execution_end:b:error",
      "message_start:toolResult:b:error",
      "message_end:toolResult:b:error",
      "turn_end:2",
      "agent_end",
    ]);
  });

  it("sequential: an onToolExecutionStart pending at the abort resolves afterwards; the tool does not start and afterToolCall is not asked", async () => {
    const controller = new AbortController();
    const started: string[] = [];
    let afterCalls = 0;
    const { messages, scripted } = await runLoopScenario({
      script: twoCalls(),
      tools: [recordingTool("run", started, { executionMode: "sequential" })],
      signal: controller.signal,
      config: {
        onToolExecutionStart: async () => {
          setTimeout(() => controller.abort(), 1);
          await sleep(10);
        },
        afterToolCall: async () => {
          afterCalls += 1;
          return undefined;
        },
      },
    });
    expect(started).toEqual([]);
    expect(afterCalls).toBe(0);
    expect(scripted.requests).toHaveLength(1);
    expect(resultsOf(messages)).toEqual([
      ["a", true, ToolResultText.aborted],
      ["b", true, ToolResultText.aborted],
    ]);
  });

  it("parallel: every onToolExecutionStart pending at the abort resolves afterwards; no tool starts", async () => {
    const controller = new AbortController();
    const started: string[] = [];
    const release = deferred();
    let pending = 0;
    const { messages, scripted } = await runLoopScenario({
      script: twoCalls(),
      tools: [recordingTool("run", started)],
      signal: controller.signal,
      config: {
        onToolExecutionStart: async () => {
          pending += 1;
          if (pending === 2) {
            controller.abort();
            setTimeout(() => release.resolve(), 1);
          }
          await release.promise;
        },
      },
    });
    expect(pending).toBe(2);
    expect(started).toEqual([]);
    expect(scripted.requests).toHaveLength(1);
    expect(resultsOf(messages)).toEqual([
      ["a", true, ToolResultText.aborted],
      ["b", true, ToolResultText.aborted],
    ]);
  });

  it("parallel: a beforeToolCall pending at the abort answers allow afterwards; neither that call nor a later one starts", async () => {
    const controller = new AbortController();
    const started: string[] = [];
    const asked: string[] = [];
    const { messages, trace } = await runLoopScenario({
      script: twoCalls(),
      tools: [recordingTool("run", started)],
      signal: controller.signal,
      config: {
        beforeToolCall: async ({ toolCall: call }) => {
          asked.push(call.id);
          setTimeout(() => controller.abort(), 1);
          await sleep(10);
          return undefined;
        },
      },
    });
    expect(started).toEqual([]);
    expect(asked).toEqual(["a"]);
    expect(resultsOf(messages)).toEqual([
      ["a", true, ToolResultText.aborted],
      ["b", true, ToolResultText.aborted],
    ]);
    // Answered at once, as a blocked call is: a's end comes before b's start.
    expect(trace.filter((line) => line.startsWith("tool_execution"))).toEqual([
      "tool_execution_start:a",
      "tool_execution_end:a:error",
      "tool_execution_start:b",
      "tool_execution_end:b:error",
    ]);
  });

  it("a beforeToolCall that answers block after the abort: the call is answered aborted like every call that did not run", async () => {
    const controller = new AbortController();
    const started: string[] = [];
    const { messages } = await runLoopScenario({
      script: twoCalls(),
      tools: [recordingTool("run", started, { executionMode: "sequential" })],
      signal: controller.signal,
      config: {
        beforeToolCall: async () => {
          setTimeout(() => controller.abort(), 1);
          await sleep(10);
          return { block: true, reason: "denied by the user" };
        },
      },
    });
    expect(started).toEqual([]);
    expect(resultsOf(messages)).toEqual([
      ["a", true, ToolResultText.aborted],
      ["b", true, ToolResultText.aborted],
    ]);
  });

  it("a beforeToolCall that ignores the abort past the grace period is not waited for; its late allow starts nothing", () =>
    onFakeTime(async (until) => {
      const controller = new AbortController();
      const started: string[] = [];
      const answered = deferred();
      const begun = Date.now();
      const { messages } = await until(
        runLoopScenario({
          script: twoCalls(),
          tools: [recordingTool("run", started, { executionMode: "sequential" })],
          signal: controller.signal,
          config: {
            beforeToolCall: async () => {
              setTimeout(() => controller.abort(), 1);
              await sleep(ABORT_GRACE_MS + 100);
              answered.resolve();
              return undefined;
            },
          },
        }),
      );
      expect(Date.now() - begun).toBeGreaterThanOrEqual(1 + ABORT_GRACE_MS);
      expect(Date.now() - begun).toBeLessThan(ABORT_GRACE_MS + 100);
      await until(answered.promise);
      await until(sleep(5));
      expect(started).toEqual([]);
      expect(resultsOf(messages)).toEqual([
        ["a", true, ToolResultText.aborted],
        ["b", true, ToolResultText.aborted],
      ]);
    }));

  it("an abort during argument preparation starts no tool", async () => {
    const controller = new AbortController();
    const started: string[] = [];
    const tool = recordingTool("run", started, { executionMode: "sequential" });
    tool.prepareArguments = (args) => {
      controller.abort();
      return args;
    };
    let asked = 0;
    const { messages } = await runLoopScenario({
      script: twoCalls(),
      tools: [tool],
      signal: controller.signal,
      config: {
        beforeToolCall: async () => {
          asked += 1;
          return undefined;
        },
      },
    });
    expect(started).toEqual([]);
    expect(asked).toBe(0);
    expect(resultsOf(messages)).toEqual([
      ["a", true, ToolResultText.aborted],
      ["b", true, ToolResultText.aborted],
    ]);
  });

  it("sequential: an abort from a tool_execution_start listener starts no tool", async () => {
    const controller = new AbortController();
    const started: string[] = [];
    const { messages } = await runLoopScenario({
      script: twoCalls(),
      tools: [recordingTool("run", started, { executionMode: "sequential" })],
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "tool_execution_start") controller.abort();
      },
    });
    expect(started).toEqual([]);
    expect(resultsOf(messages)).toEqual([
      ["a", true, ToolResultText.aborted],
      ["b", true, ToolResultText.aborted],
    ]);
  });
});

describe("sibling-starts-in-the-abort-tick", () => {
  it("parallel: a tool that aborts the run as it starts keeps the next admitted call from starting", async () => {
    const controller = new AbortController();
    const started: string[] = [];
    const aborter = testTool("abort", {
      execute: async (id) => {
        started.push(id);
        controller.abort();
        return textResult("aborted the run");
      },
    });
    const { messages, scripted } = await runLoopScenario({
      script: [response([toolCall("abort", {}, { id: "a" }), toolCall("run", {}, { id: "b" })]), "never requested"],
      tools: [aborter, recordingTool("run", started)],
      signal: controller.signal,
    });
    expect(started).toEqual(["a"]);
    expect(scripted.requests).toHaveLength(1);
    expect(resultsOf(messages)).toEqual([
      ["a", false, "aborted the run"],
      ["b", true, ToolResultText.aborted],
    ]);
  });
});

describe("tool-reported-not-executed-after-it-ran", () => {
  it("a tool abandoned after the grace period is reported interrupted, and afterToolCall sees that result", () =>
    onFakeTime(async (until) => {
      const controller = new AbortController();
      const seenByAfter: (string | undefined)[] = [];
      const stuck = testTool("stuck", {
        execute: () => {
          setTimeout(() => controller.abort(), 1);
          return new Promise(() => {});
        },
      });
      const { messages } = await until(
        runLoopScenario({
          script: [response(toolCall("stuck", {}, { id: "s" })), "never requested"],
          tools: [stuck],
          signal: controller.signal,
          config: {
            afterToolCall: async ({ result }) => {
              const [first] = result.content;
              seenByAfter.push(first?.type === "text" ? first.text : undefined);
              return undefined;
            },
          },
        }),
      );
      expect(seenByAfter).toEqual([ToolResultText.interrupted]);
      expect(resultsOf(messages)).toEqual([["s", true, ToolResultText.interrupted]]);
    }));

  it("a run that fails while tools run reports the started calls as interrupted, not as not executed", async () => {
    const slowStarted = deferred();
    const slow = testTool("slow", {
      execute: (_id, _params, signal) =>
        new Promise((resolve) => {
          slowStarted.resolve();
          signal?.addEventListener("abort", () => resolve(textResult("slow stopped")));
        }),
    });
    const controller = new AbortController();
    const { messages } = await runLoopScenario({
      script: [response([toolCall("quick", {}, { id: "q" }), toolCall("slow", {}, { id: "s" })]), "never requested"],
      tools: [testTool("quick"), slow],
      signal: controller.signal,
      onEvent: async (event) => {
        if (event.type === "tool_execution_end" && event.toolCallId === "q") {
          await slowStarted.promise;
          throw new Error("end listener bug");
        }
      },
    });
    controller.abort();
    const texts = resultsOf(messages);
    expect(texts).toEqual([
      ["q", true, ToolResultText.runFailedAfterStart("end listener bug")],
      ["s", true, ToolResultText.runFailedAfterStart("end listener bug")],
    ]);
    expect(ToolResultText.runFailedAfterStart("x")).not.toContain("not executed");
    expect(ToolResultText.interrupted).not.toContain("not executed");
  });
});
