import { createAssistantMessageEventStream, type AssistantMessage, type ToolResultMessage } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { Agent, type AgentMessage } from "../src/index.js";
import { ABORT_GRACE_MS, ToolResultText } from "../src/internal.js";
import {
  ABORTED_ERROR_MESSAGE,
  assistantMessage,
  createScriptedModel,
  createVirtualClock,
  hang,
  response,
  toolCall,
} from "../src/testing/index.js";
import {
  createAgentScenario,
  deferred,
  firstText,
  runLoopScenario,
  testTool,
  textResult,
  user,
} from "./support/scenario.js";
import { onFakeTime } from "./support/fake-time.js";

function toolResultsOf(messages: readonly AgentMessage[]): ToolResultMessage[] {
  return messages.filter((message): message is ToolResultMessage => message.role === "toolResult");
}

function lastAssistant(messages: readonly AgentMessage[]): AssistantMessage {
  return messages.filter((message): message is AssistantMessage => message.role === "assistant").at(-1)!;
}

/** A tool that waits for the abort, then fails as a well-behaved tool does. */
function abortableTool(name: string, started?: () => void) {
  return testTool(name, {
    execute: (_id, _params, signal) =>
      new Promise((_resolve, rejectExecution) => {
        started?.();
        if (signal?.aborted) rejectExecution(new Error(`${name} cancelled`));
        signal?.addEventListener("abort", () => rejectExecution(new Error(`${name} cancelled`)), { once: true });
      }),
  });
}

describe("L10: abort during streaming", () => {
  it("the response ends aborted; no tool runs, no further request, the queues are not polled", async () => {
    const controller = new AbortController();
    let steeringPolls = 0;
    let updates = 0;
    const { trace, messages, scripted } = await runLoopScenario({
      script: [hang({ afterEvents: 3, response: response([toolCall("work"), toolCall("work")]) }), "never"],
      tools: [testTool("work")],
      signal: controller.signal,
      config: {
        getSteeringMessages: async () => {
          steeringPolls += 1;
          return [user("steer")];
        },
      },
      onEvent: (event) => {
        if (event.type === "message_update" && (updates += 1) === 2) controller.abort();
      },
    });
    expect(trace.slice(-4)).toEqual([
      "message_start:assistant",
      "message_end:assistant:aborted",
      "turn_end:0",
      "agent_end",
    ]);
    expect(lastAssistant(messages)).toMatchObject({ stopReason: "aborted", errorMessage: ABORTED_ERROR_MESSAGE });
    expect(scripted.requests).toHaveLength(1);
    expect(steeringPolls).toBe(1);
  });

  it("on a virtual clock: abort after exactly two streamed words keeps those words", async () => {
    const clock = createVirtualClock();
    const scripted = createScriptedModel([response("one two three four", { eventDelayMs: 100 })], { clock });
    const agent = new Agent({ initialState: { model: scripted.model }, streamFn: scripted.streamFn });
    const run = agent.prompt("go");
    // start, text_start, "one", " two": four events, 100 ms apart.
    await clock.advance(400);
    agent.abort();
    await run;
    const final = lastAssistant(agent.state.messages);
    expect(final.stopReason).toBe("aborted");
    expect(final.content).toEqual([{ type: "text", text: "one two" }]);
    expect(clock.pendingCount()).toBe(0);
  });

  it("a stream that ignores the signal is ended after the grace period, as aborted", () =>
    onFakeTime(async (until) => {
      const controller = new AbortController();
      const model = assistantMessage("");
      const started = Date.now();
      const { trace, messages } = await until(
        runLoopScenario({
          script: [],
          signal: controller.signal,
          config: {},
          onEvent: (event) => {
            if (event.type === "message_start" && event.message.role === "assistant") controller.abort();
          },
          streamFn: () => {
            const stream = createAssistantMessageEventStream();
            // Starts, then never ends and never looks at the signal.
            queueMicrotask(() => stream.push({ type: "start", partial: model }));
            return stream;
          },
        }),
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(ABORT_GRACE_MS);
      expect(trace.slice(-3)).toEqual(["message_end:assistant:aborted", "turn_end:0", "agent_end"]);
      expect(lastAssistant(messages).stopReason).toBe("aborted");
    }));

  it("a signal aborted before the run: no request is made, the step ends aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const { messages, scripted, trace } = await runLoopScenario({ script: ["never shown"], signal: controller.signal });
    expect(scripted.requests).toHaveLength(0);
    expect(lastAssistant(messages)).toMatchObject({
      stopReason: "aborted",
      errorMessage: ABORTED_ERROR_MESSAGE,
      content: [],
    });
    expect(trace.slice(-4)).toEqual([
      "message_start:assistant",
      "message_end:assistant:aborted",
      "turn_end:0",
      "agent_end",
    ]);
  });
});

describe("L10: abort during a tool batch", () => {
  it("parallel: every call has a result, no further request, the queues are not polled", async () => {
    const controller = new AbortController();
    let steeringPolls = 0;
    const { trace, messages, scripted } = await runLoopScenario({
      script: [response([toolCall("quick", {}, { id: "q" }), toolCall("long", {}, { id: "l" })]), "never"],
      tools: [testTool("quick"), abortableTool("long", () => setTimeout(() => controller.abort(), 1))],
      signal: controller.signal,
      config: {
        getSteeringMessages: async () => {
          steeringPolls += 1;
          return [];
        },
      },
    });
    expect(scripted.requests).toHaveLength(1);
    expect(steeringPolls).toBe(1);
    expect(toolResultsOf(messages).map((result) => [result.toolCallId, result.isError, firstText(result)])).toEqual([
      ["q", false, "quick done"],
      ["l", true, "long cancelled"],
    ]);
    expect(trace.slice(-2)).toEqual(["turn_end:2", "agent_end"]);
  });

  it("sequential: the running call ends, the calls after it are answered without running", async () => {
    const controller = new AbortController();
    const ran: string[] = [];
    const first = testTool("first", {
      executionMode: "sequential",
      execute: (id, _params, signal) => {
        ran.push(id);
        queueMicrotask(() => controller.abort());
        return new Promise((_resolve, rejectExecution) => {
          signal?.addEventListener("abort", () => rejectExecution(new Error("first cancelled")), { once: true });
        });
      },
    });
    const second = testTool("second", {
      execute: async (id) => {
        ran.push(id);
        return textResult("ran");
      },
    });
    const { messages, scripted } = await runLoopScenario({
      script: [
        response([
          toolCall("first", {}, { id: "a" }),
          toolCall("second", {}, { id: "b" }),
          toolCall("second", {}, { id: "c" }),
        ]),
        "never",
      ],
      tools: [first, second],
      signal: controller.signal,
    });
    expect(ran).toEqual(["a"]);
    expect(scripted.requests).toHaveLength(1);
    expect(toolResultsOf(messages).map((result) => [result.toolCallId, result.isError, firstText(result)])).toEqual([
      ["a", true, "first cancelled"],
      ["b", true, ToolResultText.aborted],
      ["c", true, ToolResultText.aborted],
    ]);
  });

  it("parallel, abort during preparation: admitted calls are not executed, later calls are answered", async () => {
    const controller = new AbortController();
    let executed = 0;
    const tool = testTool("work", {
      execute: async () => {
        executed += 1;
        return textResult("ran");
      },
    });
    const { messages, scripted } = await runLoopScenario({
      script: [
        response([
          toolCall("work", {}, { id: "a" }),
          toolCall("work", {}, { id: "b" }),
          toolCall("work", {}, { id: "c" }),
        ]),
        "never",
      ],
      tools: [tool],
      signal: controller.signal,
      config: {
        beforeToolCall: async ({ toolCall }, signal) => {
          if (toolCall.id === "b") {
            controller.abort();
            expect(signal?.aborted).toBe(true);
          }
          return undefined;
        },
      },
    });
    expect(executed).toBe(0);
    expect(scripted.requests).toHaveLength(1);
    expect(toolResultsOf(messages).map((result) => [result.toolCallId, result.isError])).toEqual([
      ["a", true],
      ["b", true],
      ["c", true],
    ]);
  });

  it("parallel, abort as the first call starts: neither call is executed, and the ends go through the serial chain", async () => {
    const controller = new AbortController();
    const executed: string[] = [];
    let inListener = false;
    let overlapped = false;
    const tool = abortableTool("work");
    const wrapped = testTool("work", {
      execute: (id, params, signal, onUpdate) => {
        executed.push(id);
        return tool.execute(id, params, signal, onUpdate);
      },
    });
    const { messages, scripted } = await runLoopScenario({
      script: [response([toolCall("work", {}, { id: "a" }), toolCall("work", {}, { id: "b" })]), "never"],
      tools: [wrapped],
      signal: controller.signal,
      config: {
        onToolExecutionStart: ({ toolCall }) => {
          if (toolCall.id === "a") controller.abort();
        },
      },
      onEvent: async () => {
        if (inListener) overlapped = true;
        inListener = true;
        await new Promise((resolve) => setTimeout(resolve, 1));
        inListener = false;
      },
    });
    expect(overlapped).toBe(false);
    // The abort came from a's onToolExecutionStart: a is not started either.
    expect(executed).toEqual([]);
    expect(scripted.requests).toHaveLength(1);
    expect(toolResultsOf(messages).map((result) => [result.toolCallId, firstText(result)])).toEqual([
      ["a", ToolResultText.aborted],
      ["b", ToolResultText.aborted],
    ]);
  });

  it("a tool that ignores the signal is abandoned after the grace period with an interrupted result", () =>
    onFakeTime(async (until) => {
      const controller = new AbortController();
      const never = testTool("stuck", {
        execute: () => {
          setTimeout(() => controller.abort(), 1);
          return new Promise(() => {});
        },
      });
      const started = Date.now();
      const { messages, scripted } = await until(
        runLoopScenario({
          script: [response(toolCall("stuck", {}, { id: "s" })), "never"],
          tools: [never],
          signal: controller.signal,
        }),
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(1 + ABORT_GRACE_MS);
      expect(scripted.requests).toHaveLength(1);
      // It did run: its result says so, never "not executed".
      expect(toolResultsOf(messages).map((result) => [result.isError, firstText(result)])).toEqual([
        [true, ToolResultText.interrupted],
      ]);
    }));

  it("an abort after the batch finished still makes no further request", async () => {
    const controller = new AbortController();
    const { scripted, messages } = await runLoopScenario({
      script: [response(toolCall("work", {}, { id: "w" })), "never"],
      tools: [testTool("work")],
      signal: controller.signal,
      config: {
        afterToolCall: async () => {
          controller.abort();
          return undefined;
        },
      },
    });
    expect(scripted.requests).toHaveLength(1);
    expect(toolResultsOf(messages)).toHaveLength(1);
  });
});

describe("L10: Agent.abort()", () => {
  it("during streaming: the run ends aborted, state is idle, the transcript is replayable", async () => {
    const { agent, scripted, takeRun } = createAgentScenario([hang({ afterEvents: 2 })]);
    agent.subscribe((event) => {
      if (event.type === "message_update") agent.abort();
    });
    await agent.prompt("hello");
    takeRun();
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.errorMessage).toBe(ABORTED_ERROR_MESSAGE);
    expect(lastAssistant(agent.state.messages).stopReason).toBe("aborted");
    expect(scripted.requests).toHaveLength(1);
  });

  it("during a tool: the tool sees the signal, every call has a result, no further request", async () => {
    const toolStarted = deferred();
    const { agent, scripted, takeRun } = createAgentScenario(
      [response([toolCall("long", {}, { id: "l" }), toolCall("quick", {}, { id: "q" })]), "never"],
      {
        tools: [abortableTool("long", () => toolStarted.resolve()), testTool("quick")],
      },
    );
    const run = agent.prompt("go");
    await toolStarted.promise;
    expect(agent.state.pendingToolCalls.has("l")).toBe(true);
    agent.abort();
    await run;
    takeRun();
    expect(scripted.requests).toHaveLength(1);
    expect(toolResultsOf(agent.state.messages).map((result) => [result.toolCallId, result.isError])).toEqual([
      ["l", true],
      ["q", false],
    ]);
    expect(agent.state.pendingToolCalls.size).toBe(0);
  });

  it("a hanging listener does not keep the run alive after abort()", () =>
    onFakeTime(async (until) => {
      const { agent, takeRun } = createAgentScenario([response("one two three")]);
      let hung = false;
      agent.subscribe(async (event) => {
        if (event.type === "message_update" && !hung) {
          hung = true;
          agent.abort();
          await new Promise(() => {});
        }
      });
      const after: string[] = [];
      agent.subscribe((event) => {
        after.push(event.type);
      });
      await until(agent.prompt("go"));
      takeRun();
      expect(agent.state.isStreaming).toBe(false);
      // The listener after the hanging one still sees the end of the run.
      expect(after.at(-1)).toBe("agent_end");
      expect(after.filter((type) => type === "message_update").length).toBeGreaterThanOrEqual(1);
    }));

  it("a hanging listener on agent_end is bounded by abort(), and later listeners still get agent_end", () =>
    onFakeTime(async (until) => {
      const { agent } = createAgentScenario(["done"]);
      const reachedEnd = deferred();
      agent.subscribe(async (event) => {
        if (event.type === "agent_end") {
          reachedEnd.resolve();
          await new Promise(() => {});
        }
      });
      let lastSeen: string | undefined;
      agent.subscribe((event) => {
        lastSeen = event.type;
      });
      const run = agent.prompt("go");
      await reachedEnd.promise;
      expect(agent.state.isStreaming).toBe(true);
      agent.abort();
      await until(run);
      expect(agent.state.isStreaming).toBe(false);
      expect(lastSeen).toBe("agent_end");
    }));

  it("abort() without a run does nothing", () => {
    const { agent } = createAgentScenario([]);
    expect(() => agent.abort()).not.toThrow();
    expect(agent.signal).toBeUndefined();
  });
});
