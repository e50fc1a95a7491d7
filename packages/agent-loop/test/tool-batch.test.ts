import type { ToolResultMessage } from "@mariozechner/pi-ai";
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { type AgentEvent, type AgentToolUpdateCallback } from "../src/index.js";
import { ToolResultText } from "../src/internal.js";
import { response, toolCall } from "../src/testing/index.js";
import { deferred, firstText, flush, runLoopScenario, testTool, textResult } from "./support/scenario.js";

function toolResultsOf(messages: readonly unknown[]): ToolResultMessage[] {
  return (messages as ToolResultMessage[]).filter((message) => message.role === "toolResult");
}

/** Counts tools running at once; `maxRunning` above 1 proves overlap without timing. */
function concurrencyProbe() {
  let running = 0;
  const probe = {
    maxRunning: 0,
    enter() {
      running += 1;
      probe.maxRunning = Math.max(probe.maxRunning, running);
    },
    leave() {
      running -= 1;
    },
  };
  return probe;
}

describe("behaviour L4: parallel tool batches", () => {
  it("runs calls concurrently: ends in completion order, results in call order", async () => {
    const probe = concurrencyProbe();
    const fastEnded = deferred();
    const slowStarted = deferred();
    const slow = testTool("slow", {
      execute: async () => {
        probe.enter();
        slowStarted.resolve();
        // Finishes only after the fast call has ended: possible only if both run at once.
        await fastEnded.promise;
        probe.leave();
        return textResult("slow result");
      },
    });
    const fast = testTool("fast", {
      execute: async () => {
        probe.enter();
        await slowStarted.promise;
        probe.leave();
        return textResult("fast result");
      },
    });

    const { trace, messages, events } = await runLoopScenario({
      script: [response([toolCall("slow", {}, { id: "s" }), toolCall("fast", {}, { id: "f" })]), "done"],
      tools: [slow, fast],
      onEvent: (event) => {
        if (event.type === "tool_execution_end" && event.toolCallId === "f") fastEnded.resolve();
      },
    });

    expect(probe.maxRunning).toBe(2);
    expect(trace.slice(4, 13)).toEqual([
      "message_start:assistant",
      "message_end:assistant:toolUse",
      "tool_execution_start:s",
      "tool_execution_start:f",
      "tool_execution_end:f",
      "tool_execution_end:s",
      "message_start:toolResult:s",
      "message_end:toolResult:s",
      "message_start:toolResult:f",
    ]);
    const results = toolResultsOf(messages);
    expect(results.map((result) => [result.toolCallId, firstText(result)])).toEqual([
      ["s", "slow result"],
      ["f", "fast result"],
    ]);
    const turnEnd = events.find((event) => event.type === "turn_end" && event.toolResults.length > 0);
    expect(turnEnd?.type === "turn_end" && turnEnd.toolResults.map((result) => result.toolCallId)).toEqual(["s", "f"]);
  });

  it("prepares every call (start event, beforeToolCall) before executing any", async () => {
    const order: string[] = [];
    const tool = testTool("work", {
      execute: async (id) => {
        order.push(`execute:${id}`);
        return textResult("ok");
      },
    });
    await runLoopScenario({
      script: [response([toolCall("work", {}, { id: "a" }), toolCall("work", {}, { id: "b" })]), "done"],
      tools: [tool],
      config: {
        beforeToolCall: async ({ toolCall }) => {
          order.push(`before:${toolCall.id}`);
          return undefined;
        },
        onToolExecutionStart: ({ toolCall }) => {
          order.push(`onStart:${toolCall.id}`);
        },
      },
      onEvent: (event) => {
        if (event.type === "tool_execution_start") order.push(`start:${event.toolCallId}`);
      },
    });
    expect(order.slice(0, 4)).toEqual(["start:a", "before:a", "start:b", "before:b"]);
    expect(order.slice(4).sort()).toEqual(["execute:a", "execute:b", "onStart:a", "onStart:b"]);
    expect(order.indexOf("onStart:a")).toBeLessThan(order.indexOf("execute:a"));
  });

  it("delivers events one at a time while tools run concurrently (no overlapping listener calls)", async () => {
    let inListener = 0;
    let overlapped = false;
    const tool = testTool("update", {
      execute: async (_id, _params, _signal, onUpdate) => {
        onUpdate?.(textResult("partial"));
        await flush();
        return textResult("ok");
      },
    });
    await runLoopScenario({
      script: [
        response([
          toolCall("update", {}, { id: "a" }),
          toolCall("update", {}, { id: "b" }),
          toolCall("update", {}, { id: "c" }),
        ]),
        "done",
      ],
      tools: [tool],
      onEvent: async () => {
        inListener += 1;
        if (inListener > 1) overlapped = true;
        await flush();
        inListener -= 1;
      },
    });
    expect(overlapped).toBe(false);
  });
});

describe("behaviour L4: sequential tool batches", () => {
  it("one sequential tool makes the whole batch sequential", async () => {
    const probe = concurrencyProbe();
    const make = (name: string, executionMode?: "sequential") =>
      testTool(name, {
        executionMode,
        execute: async () => {
          probe.enter();
          await flush();
          probe.leave();
          return textResult(`${name} result`);
        },
      });
    const { trace } = await runLoopScenario({
      script: [
        response([toolCall("p1", {}, { id: "a" }), toolCall("seq", {}, { id: "b" }), toolCall("p2", {}, { id: "c" })]),
        "done",
      ],
      tools: [make("p1"), make("seq", "sequential"), make("p2")],
    });
    expect(probe.maxRunning).toBe(1);
    // Each call runs to its result before the next starts.
    expect(trace.slice(6, 18)).toEqual([
      "tool_execution_start:a",
      "tool_execution_end:a",
      "message_start:toolResult:a",
      "message_end:toolResult:a",
      "tool_execution_start:b",
      "tool_execution_end:b",
      "message_start:toolResult:b",
      "message_end:toolResult:b",
      "tool_execution_start:c",
      "tool_execution_end:c",
      "message_start:toolResult:c",
      "message_end:toolResult:c",
    ]);
  });

  it("toolExecution: sequential in the config runs calls one after another", async () => {
    const probe = concurrencyProbe();
    const tool = testTool("t", {
      execute: async () => {
        probe.enter();
        await flush();
        probe.leave();
        return textResult("ok");
      },
    });
    await runLoopScenario({
      script: [response([toolCall("t"), toolCall("t"), toolCall("t")]), "done"],
      tools: [tool],
      config: { toolExecution: "sequential" },
    });
    expect(probe.maxRunning).toBe(1);
  });

  it("forwards tool_execution_update before the call's end, also with a slow listener", async () => {
    const tool = testTool("progress", {
      execute: async (_id, _params, _signal, onUpdate) => {
        onUpdate?.(textResult("25%"));
        onUpdate?.(textResult("75%"));
        return textResult("100%");
      },
    });
    const { events } = await runLoopScenario({
      script: [response(toolCall("progress", {}, { id: "p" })), "done"],
      tools: [tool],
      config: { toolExecution: "sequential" },
      onEvent: async (event) => {
        if (event.type === "tool_execution_update") await new Promise((resolve) => setTimeout(resolve, 5));
      },
    });
    const toolEvents = events.filter((event) => event.type.startsWith("tool_execution"));
    expect(toolEvents.map((event) => event.type)).toEqual([
      "tool_execution_start",
      "tool_execution_update",
      "tool_execution_update",
      "tool_execution_end",
    ]);
    const update = toolEvents[1];
    expect(update?.type === "tool_execution_update" && update).toMatchObject({
      toolCallId: "p",
      toolName: "progress",
      args: {},
    });
    expect(update?.type === "tool_execution_update" && firstText(update.partialResult)).toBe("25%");
  });

  it("ignores onUpdate calls after the tool settled", async () => {
    let saved: AgentToolUpdateCallback | undefined;
    const tool = testTool("leaky", {
      execute: async (_id, _params, _signal, onUpdate) => {
        saved = onUpdate;
        onUpdate?.(textResult("while running"));
        return textResult("done");
      },
    });
    const late = deferred();
    const { events } = await runLoopScenario({
      script: [response(toolCall("leaky", {}, { id: "l" })), "done"],
      tools: [tool],
      onEvent: async (event) => {
        if (event.type === "tool_execution_end") {
          saved?.(textResult("after settle"));
          late.resolve();
        }
      },
    });
    await late.promise;
    await flush();
    const updates = events.filter((event) => event.type === "tool_execution_update");
    expect(updates).toHaveLength(1);
    expect(updates[0]?.type === "tool_execution_update" && firstText(updates[0].partialResult)).toBe("while running");
  });
});

describe("behaviour L5: every failing call gets a paired error result", () => {
  async function runOne(
    options: Parameters<typeof runLoopScenario>[0]["config"] & {
      tool?: ReturnType<typeof testTool>;
      args?: Record<string, unknown>;
    } = {},
  ) {
    const { tool = testTool("work"), args = {}, ...config } = options;
    const scenario = await runLoopScenario({
      script: [response(toolCall(tool.name === "work" ? "work" : tool.name, args, { id: "c1" })), "after"],
      tools: [tool],
      config,
    });
    const [result] = toolResultsOf(scenario.messages);
    const end = scenario.events.find(
      (event): event is Extract<AgentEvent, { type: "tool_execution_end" }> => event.type === "tool_execution_end",
    );
    return { ...scenario, result, end };
  }

  it("unknown tool", async () => {
    const { result, end, scripted, trace } = await runLoopScenario({
      script: [response(toolCall("missing", {}, { id: "c1" })), "after"],
      tools: [testTool("work")],
    }).then((scenario) => ({
      ...scenario,
      result: toolResultsOf(scenario.messages)[0],
      end: scenario.events.find((event) => event.type === "tool_execution_end"),
    }));
    expect(trace).toContain("tool_execution_start:c1");
    expect(end).toMatchObject({ type: "tool_execution_end", toolCallId: "c1", isError: true });
    expect(result).toMatchObject({ toolCallId: "c1", toolName: "missing", isError: true });
    expect(firstText(result)).toBe("Tool missing not found");
    // The model sees the error and answers it.
    expect(scripted.requests).toHaveLength(2);
  });

  it("invalid arguments: the text names the field and shows what was received", async () => {
    const tool = testTool("count", { parameters: Type.Object({ n: Type.Number() }) });
    const { result, end } = await runOne({ tool, args: { n: "many" } });
    expect(end?.isError).toBe(true);
    expect(result?.isError).toBe(true);
    const text = firstText(result) ?? "";
    expect(text).toContain('Validation failed for tool "count"');
    expect(text).toContain("n:");
    expect(text).toContain('"many"');
  });

  it("execute throws", async () => {
    const tool = testTool("work", {
      execute: async () => {
        throw new Error("disk full");
      },
    });
    const { result, end } = await runOne({ tool });
    expect(end).toMatchObject({ isError: true });
    expect(result).toMatchObject({ isError: true });
    expect(firstText(result)).toBe("disk full");
  });

  it("execute throws synchronously (not async)", async () => {
    const tool = testTool("work", {
      execute: (() => {
        throw new Error("sync failure");
      }) as never,
    });
    const { result } = await runOne({ tool });
    expect(result).toMatchObject({ isError: true });
    expect(firstText(result)).toBe("sync failure");
  });

  it("blocked by beforeToolCall, with its reason or a default text; execute never runs", async () => {
    let executed = 0;
    const tool = testTool("work", {
      execute: async () => {
        executed += 1;
        return textResult("ran");
      },
    });
    const withReason = await runOne({
      tool,
      beforeToolCall: async () => ({ block: true, reason: "Not allowed here" }),
    });
    expect(withReason.result).toMatchObject({ isError: true });
    expect(firstText(withReason.result)).toBe("Not allowed here");
    const withoutReason = await runOne({ tool, beforeToolCall: async () => ({ block: true }) });
    expect(firstText(withoutReason.result)).toBe(ToolResultText.blocked);
    expect(executed).toBe(0);
  });

  it("beforeToolCall throws: the call is not executed", async () => {
    let executed = 0;
    const tool = testTool("work", {
      execute: async () => {
        executed += 1;
        return textResult("ran");
      },
    });
    const { result } = await runOne({
      tool,
      beforeToolCall: async () => {
        throw new Error("policy service down");
      },
    });
    expect(result).toMatchObject({ isError: true });
    expect(firstText(result)).toBe("policy service down");
    expect(executed).toBe(0);
  });

  it("afterToolCall throws: the executed result is replaced by an error", async () => {
    const { result, end } = await runOne({
      afterToolCall: async () => {
        throw new Error("audit failed");
      },
    });
    expect(end).toMatchObject({ isError: true });
    expect(result).toMatchObject({ isError: true });
    expect(firstText(result)).toBe("audit failed");
  });

  it("prepareArguments throws", async () => {
    const tool = testTool("work", {
      prepareArguments: () => {
        throw new Error("cannot read legacy arguments");
      },
    });
    const { result } = await runOne({ tool });
    expect(result).toMatchObject({ isError: true });
    expect(firstText(result)).toBe("cannot read legacy arguments");
  });

  it("prepareArguments reshapes arguments before validation", async () => {
    let received: unknown;
    const tool = testTool("work", {
      parameters: Type.Object({ path: Type.String() }),
      prepareArguments: (args) => ({ path: (args as { file: string }).file }),
      execute: async (_id, params) => {
        received = params;
        return textResult("ok");
      },
    });
    const { result } = await runOne({ tool, args: { file: "a.txt" } });
    expect(result?.isError).toBe(false);
    expect(received).toEqual({ path: "a.txt" });
  });

  it("afterToolCall patches content, details and isError field by field", async () => {
    const { result, end } = await runOne({
      afterToolCall: async ({ result: executed, isError }) => {
        expect(firstText({ role: "toolResult", content: executed.content } as never)).toBe("work done");
        expect(isError).toBe(false);
        return { content: [{ type: "text", text: "redacted" }], isError: true };
      },
    });
    expect(end).toMatchObject({ isError: true });
    expect(result).toMatchObject({ isError: true, details: {} });
    expect(firstText(result)).toBe("redacted");
  });

  it("afterToolCall: details replace the executed details; null or omitted keep them (as in pi)", async () => {
    const tool = testTool("work", { execute: async () => textResult("out", { details: { bytes: 3 } }) });
    const replaced = await runOne({ tool, afterToolCall: async () => ({ details: { bytes: 0 } }) });
    expect(replaced.result?.details).toEqual({ bytes: 0 });
    const kept = await runOne({ tool, afterToolCall: async () => ({ details: null, isError: false }) });
    expect(kept.result?.details).toEqual({ bytes: 3 });
    expect(firstText(kept.result)).toBe("out");
  });

  it("a mixed batch answers every call, in call order", async () => {
    const ok = testTool("ok");
    const boom = testTool("boom", {
      execute: async () => {
        throw new Error("boom");
      },
    });
    const { messages, scripted } = await runLoopScenario({
      script: [
        response([
          toolCall("ok", {}, { id: "1" }),
          toolCall("nope", {}, { id: "2" }),
          toolCall("boom", {}, { id: "3" }),
          toolCall("ok", {}, { id: "4" }),
        ]),
        "after",
      ],
      tools: [ok, boom],
    });
    expect(toolResultsOf(messages).map((result) => [result.toolCallId, result.isError, firstText(result)])).toEqual([
      ["1", false, "ok done"],
      ["2", true, "Tool nope not found"],
      ["3", true, "boom"],
      ["4", false, "ok done"],
    ]);
    expect(scripted.requests[1]!.context.messages.filter((message) => message.role === "toolResult")).toHaveLength(4);
  });

  it("onToolExecutionStart sees only admitted calls, and its failure does not stop the tool", async () => {
    const seen: string[] = [];
    const { messages } = await runLoopScenario({
      script: [
        response([
          toolCall("work", {}, { id: "a" }),
          toolCall("work", {}, { id: "b" }),
          toolCall("nope", {}, { id: "c" }),
        ]),
        "after",
      ],
      tools: [testTool("work")],
      config: {
        beforeToolCall: async ({ toolCall }) => (toolCall.id === "b" ? { block: true } : undefined),
        onToolExecutionStart: ({ toolCall }) => {
          seen.push(toolCall.id);
          throw new Error("observer broke");
        },
      },
    });
    expect(seen).toEqual(["a"]);
    expect(toolResultsOf(messages).map((result) => result.isError)).toEqual([false, true, true]);
  });
});
