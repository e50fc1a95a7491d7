import type { AssistantMessage, ToolResultMessage } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { agentLoop, type AgentEvent, type AgentLoopConfig, type AgentMessage } from "../src/index.js";
import {
  createScriptedModel,
  endWithoutDone,
  eventsAfterDone,
  reject,
  response,
  throwSync,
  toolCall,
} from "../src/testing/index.js";
import { assertEventGrammar, traceOf } from "./support/event-grammar.js";
import {
  deferred,
  firstText,
  providerMessagesOnly,
  runLoopScenario,
  testTool,
  textResult,
  user,
} from "./support/scenario.js";

function toolResultsOf(messages: readonly AgentMessage[]): ToolResultMessage[] {
  return messages.filter((message): message is ToolResultMessage => message.role === "toolResult");
}

function lastAssistant(messages: readonly AgentMessage[]): AssistantMessage {
  return messages.filter((message): message is AssistantMessage => message.role === "assistant").at(-1)!;
}

/** The failure lifecycle of L9 at the end of a trace. */
const FAILURE_TAIL = ["message_start:assistant", "message_end:assistant:error", "turn_end:0", "agent_end"];

describe("behaviour L9: a stream function that breaks its contract", () => {
  it("throws synchronously: a synthesised error message, then turn_end and agent_end", async () => {
    const { trace, messages, scripted } = await runLoopScenario({ script: [throwSync(new Error("socket closed"))] });
    expect(trace).toEqual(["agent_start", "turn_start", "message_start:user", "message_end:user", ...FAILURE_TAIL]);
    expect(lastAssistant(messages)).toMatchObject({ stopReason: "error", errorMessage: "socket closed", content: [] });
    expect(scripted.requests).toHaveLength(1);
  });

  it("returns a rejected promise: the same lifecycle", async () => {
    const { trace, messages } = await runLoopScenario({ script: [reject(new Error("quota exceeded"))] });
    expect(trace.slice(-4)).toEqual(FAILURE_TAIL);
    expect(lastAssistant(messages)).toMatchObject({ stopReason: "error", errorMessage: "quota exceeded" });
  });

  it("throws a non-Error value: the message is still readable", async () => {
    const { messages } = await runLoopScenario({ script: [throwSync({ status: 503 })] });
    expect(lastAssistant(messages).errorMessage).toBe('{"status":503}');
  });

  it("ends without a terminal event: an error message keeps what streamed", async () => {
    const { trace, messages } = await runLoopScenario({ script: [endWithoutDone("half an answer")] });
    expect(trace.slice(-4)).toEqual(FAILURE_TAIL);
    const final = lastAssistant(messages);
    expect(final.stopReason).toBe("error");
    expect(final.errorMessage).toMatch(/ended without a final message/);
    expect(final.content).toEqual([{ type: "text", text: "half an answer" }]);
  });

  it("ends without a terminal event, with tool calls: they are not executed", async () => {
    let executed = 0;
    const tool = testTool("work", {
      execute: async () => {
        executed += 1;
        return textResult("ran");
      },
    });
    const { messages } = await runLoopScenario({ script: [endWithoutDone(response(toolCall("work")))], tools: [tool] });
    expect(executed).toBe(0);
    expect(lastAssistant(messages).stopReason).toBe("error");
  });

  it("emits events after done: they are ignored (pi-ai's stream drops them)", async () => {
    const { messages, events } = await runLoopScenario({ script: [eventsAfterDone("the answer")] });
    expect(firstText(lastAssistant(messages) as never)).toBe("the answer");
    expect(
      events
        .filter((event) => event.type === "message_update")
        .every((event) => !JSON.stringify(event).includes("late text")),
    ).toBe(true);
  });

  it("emits events after done that reach the consumer: the loop stops reading at done", async () => {
    const { messages, events } = await runLoopScenario({
      script: [eventsAfterDone("the answer", { reachConsumer: true }), "never"],
    });
    const final = lastAssistant(messages);
    expect(final.content).toEqual([{ type: "text", text: "the answer" }]);
    expect(JSON.stringify(events)).not.toContain("late text after done");
  });
});

describe("behaviour L9: callbacks that throw", () => {
  const cases: [string, Partial<AgentLoopConfig>][] = [
    ["transformContext", { transformContext: async () => Promise.reject(new Error("transformContext failed")) }],
    [
      "convertToLlm",
      {
        convertToLlm: () => {
          throw new Error("convertToLlm failed");
        },
      },
    ],
    [
      "getApiKey",
      {
        getApiKey: () => {
          throw new Error("getApiKey failed");
        },
      },
    ],
  ];
  for (const [name, config] of cases) {
    it(`${name} throws: an error message, no request`, async () => {
      const { trace, messages, scripted } = await runLoopScenario({ script: ["never"], config });
      expect(trace.slice(-4)).toEqual(FAILURE_TAIL);
      expect(lastAssistant(messages).errorMessage).toBe(`${name} failed`);
      expect(scripted.requests).toHaveLength(0);
    });
  }

  it("getSteeringMessages throws at the start: the open turn is closed with an error message", async () => {
    const { trace, messages } = await runLoopScenario({
      script: ["never"],
      config: { getSteeringMessages: async () => Promise.reject(new Error("queue store offline")) },
    });
    expect(trace).toEqual(["agent_start", "turn_start", "message_start:user", "message_end:user", ...FAILURE_TAIL]);
    expect(lastAssistant(messages).errorMessage).toBe("queue store offline");
  });

  it("shouldStopAfterTurn throws after a tool step: a new turn carries the error message", async () => {
    const { trace, messages } = await runLoopScenario({
      script: [response(toolCall("work", {}, { id: "c1" })), "never"],
      tools: [testTool("work")],
      config: {
        shouldStopAfterTurn: () => {
          throw new Error("stop check failed");
        },
      },
    });
    expect(trace.slice(-6)).toEqual(["turn_end:1", "turn_start", ...FAILURE_TAIL]);
    expect(lastAssistant(messages).errorMessage).toBe("stop check failed");
  });

  it("getFollowUpMessages throws: the run still ends with the failure lifecycle", async () => {
    const { trace } = await runLoopScenario({
      script: ["answer"],
      config: { getFollowUpMessages: async () => Promise.reject(new Error("follow-ups unavailable")) },
    });
    expect(trace.slice(-5)).toEqual(["turn_start", ...FAILURE_TAIL]);
  });
});

describe("behaviour L9: an event sink (listener) that throws", () => {
  it("on a message_update: the partial becomes the error message; the run ends", async () => {
    let updates = 0;
    const { trace, messages, scripted } = await runLoopScenario({
      script: [response("one two three four five"), "never"],
      onEvent: (event) => {
        if (event.type === "message_update" && (updates += 1) === 3) throw new Error("renderer crashed");
      },
    });
    expect(trace.slice(-3)).toEqual(["message_end:assistant:error", "turn_end:0", "agent_end"]);
    const final = lastAssistant(messages);
    expect(final.errorMessage).toBe("renderer crashed");
    // What had streamed when the listener failed is kept (the third update carried " two").
    expect(final.content).toEqual([{ type: "text", text: "one two" }]);
    expect(scripted.requests).toHaveLength(1);
  });

  it("on agent_start: the prompt is still announced, then a turn with an error message", async () => {
    const { trace, messages, scripted } = await runLoopScenario({
      script: ["never"],
      onEvent: (event) => {
        if (event.type === "agent_start") throw new Error("subscriber failed");
      },
    });
    // A transcript built from message_end must not lose the prompt.
    expect(trace).toEqual(["agent_start", "turn_start", "message_start:user", "message_end:user", ...FAILURE_TAIL]);
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(scripted.requests).toHaveLength(0);
  });

  it("on a prompt's message_start: that prompt and the next are closed and announced", async () => {
    const { trace } = await runLoopScenario({
      script: ["never"],
      prompts: [user("first"), user("second")],
      onEvent: (event) => {
        if (event.type === "message_start" && firstText(event.message) === "first")
          throw new Error("subscriber failed");
      },
    });
    expect(trace).toEqual([
      "agent_start",
      "turn_start",
      "message_start:user",
      "message_end:user",
      "message_start:user",
      "message_end:user",
      ...FAILURE_TAIL,
    ]);
  });

  it("on the second call's end in a sequential batch: turn_end reports every result of the turn", async () => {
    const { events, messages } = await runLoopScenario({
      script: [
        response([
          toolCall("work", {}, { id: "a" }),
          toolCall("work", {}, { id: "b" }),
          toolCall("work", {}, { id: "c" }),
        ]),
        "never",
      ],
      tools: [testTool("work")],
      config: { toolExecution: "sequential" },
      onEvent: (event) => {
        if (event.type === "tool_execution_end" && event.toolCallId === "b") throw new Error("listener failed");
      },
    });
    expect(toolResultsOf(messages).map((result) => [result.toolCallId, result.isError])).toEqual([
      ["a", false],
      ["b", true],
      ["c", true],
    ]);
    const turnEnd = events.filter((event) => event.type === "turn_end").at(-1);
    expect(turnEnd?.type === "turn_end" && turnEnd.toolResults.map((result) => result.toolCallId)).toEqual([
      "a",
      "b",
      "c",
    ]);
    // The call that never started still gets its execution events, like any skipped call.
    expect(traceOf(events).slice(-8)).toEqual([
      "tool_execution_start:c",
      "tool_execution_end:c:error",
      "message_start:toolResult:c:error",
      "message_end:toolResult:c:error",
      "message_start:assistant",
      "message_end:assistant:error",
      "turn_end:3",
      "agent_end",
    ]);
  });

  it("on a tool_execution_end while other tools run: every call still gets a result", async () => {
    const slowRelease = deferred();
    const slow = testTool("slow", {
      execute: async () => {
        await slowRelease.promise;
        return textResult("slow done");
      },
    });
    const { messages, events } = await runLoopScenario({
      script: [response([toolCall("slow", {}, { id: "s" }), toolCall("fast", {}, { id: "f" })]), "never"],
      tools: [slow, testTool("fast")],
      onEvent: (event) => {
        if (event.type === "tool_execution_end" && event.toolCallId === "f") {
          setTimeout(() => slowRelease.resolve(), 1);
          throw new Error("listener failed on end");
        }
      },
    });
    const results = toolResultsOf(messages);
    expect(results.map((result) => [result.toolCallId, result.isError])).toEqual([
      ["s", true],
      ["f", true],
    ]);
    expect(firstText(results[0])).toContain("listener failed on end");
    expect(lastAssistant(messages)).toMatchObject({ stopReason: "error", errorMessage: "listener failed on end" });
    const ended = events
      .filter((event) => event.type === "tool_execution_end")
      .map((event) => event.type === "tool_execution_end" && event.toolCallId);
    expect(ended.sort()).toEqual(["f", "s"]);
  });

  it("on the message_end of a response with tool calls: the calls are answered without running", async () => {
    let executed = 0;
    const tool = testTool("work", {
      execute: async () => {
        executed += 1;
        return textResult("ran");
      },
    });
    const { messages, trace } = await runLoopScenario({
      script: [response([toolCall("work", {}, { id: "a" }), toolCall("work", {}, { id: "b" })]), "never"],
      tools: [tool],
      onEvent: (event) => {
        if (event.type === "message_end" && event.message.role === "assistant") throw new Error("store unavailable");
      },
    });
    expect(executed).toBe(0);
    expect(toolResultsOf(messages).map((result) => [result.toolCallId, result.isError, firstText(result)])).toEqual([
      ["a", true, "Tool call was not executed: the run failed (store unavailable)."],
      ["b", true, "Tool call was not executed: the run failed (store unavailable)."],
    ]);
    expect(trace.slice(-4)).toEqual([
      "message_start:assistant",
      "message_end:assistant:error",
      "turn_end:2",
      "agent_end",
    ]);
  });

  it("on a tool_execution_update: the run fails at that call's end", async () => {
    const tool = testTool("progress", {
      execute: async (_id, _params, _signal, onUpdate) => {
        onUpdate?.(textResult("half"));
        return textResult("all");
      },
    });
    const { messages, scripted } = await runLoopScenario({
      script: [response(toolCall("progress", {}, { id: "p" })), "never"],
      tools: [tool],
      onEvent: (event) => {
        if (event.type === "tool_execution_update") throw new Error("progress bar broke");
      },
    });
    expect(scripted.requests).toHaveLength(1);
    expect(toolResultsOf(messages)).toHaveLength(1);
    expect(lastAssistant(messages).errorMessage).toBe("progress bar broke");
  });

  it("a run configured without a model still ends with an error message", async () => {
    const stream = agentLoop([user("go")], { systemPrompt: "", messages: [] }, {
      convertToLlm: providerMessagesOnly,
    } as never);
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    assertEventGrammar(events);
    expect(lastAssistant(await stream.result())).toMatchObject({ stopReason: "error", provider: "unknown" });
  });

  it("the agentLoop event stream always ends and result() resolves, whatever failed", async () => {
    const scripted = createScriptedModel([throwSync(new Error("boom"))]);
    const stream = agentLoop(
      [user("go")],
      { systemPrompt: "", messages: [] },
      { model: scripted.model, convertToLlm: providerMessagesOnly },
      undefined,
      scripted.streamFn,
    );
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    assertEventGrammar(events);
    const messages = await stream.result();
    expect(lastAssistant(messages).errorMessage).toBe("boom");
  });
});
