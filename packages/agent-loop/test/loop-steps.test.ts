import type { AssistantMessage } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { agentLoop, agentLoopContinue, type AgentEvent, type AgentMessage } from "../src/index.js";
import {
  assistantMessage,
  createScriptedModel,
  endWithoutDone,
  requestText,
  response,
  text,
  toolCall,
} from "../src/testing/index.js";
import { assertEventGrammar, traceOf } from "./support/event-grammar.js";
import { firstText, providerMessagesOnly, runLoopScenario, testTool, user } from "./support/scenario.js";

describe("behaviours L1, L2: one run, step by step", () => {
  it("a text answer: prompt, one streamed response, natural end", async () => {
    const { events, trace, messages, scripted } = await runLoopScenario({ script: [response("Hello there")] });

    expect(trace).toEqual([
      "agent_start",
      "turn_start",
      "message_start:user",
      "message_end:user",
      "message_start:assistant",
      "message_end:assistant:stop",
      "turn_end:0",
      "agent_end",
    ]);
    const updates = events.filter((event) => event.type === "message_update");
    expect(updates.map((event) => event.type === "message_update" && event.assistantMessageEvent.type)).toEqual([
      "text_start",
      "text_delta",
      "text_delta",
      "text_end",
    ]);
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect((messages[1] as AssistantMessage).content).toEqual([{ type: "text", text: "Hello there" }]);
    expect(scripted.requests).toHaveLength(1);
  });

  it("a tool step, then an answer: two steps, the second with its own turn_start", async () => {
    const { trace, messages, scripted } = await runLoopScenario({
      script: [response(toolCall("lookup", {}, { id: "c1" })), response("Found it")],
      tools: [testTool("lookup")],
    });

    expect(trace).toEqual([
      "agent_start",
      "turn_start",
      "message_start:user",
      "message_end:user",
      "message_start:assistant",
      "message_end:assistant:toolUse",
      "tool_execution_start:c1",
      "tool_execution_end:c1",
      "message_start:toolResult:c1",
      "message_end:toolResult:c1",
      "turn_end:1",
      "turn_start",
      "message_start:assistant",
      "message_end:assistant:stop",
      "turn_end:0",
      "agent_end",
    ]);
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(requestText(scripted.requests[1]!)).toBe("go\nlookup done");
  });

  it("message_update carries the source event and its partial as the message (no copy)", async () => {
    const { events } = await runLoopScenario({
      script: [response([text("Hi"), toolCall("lookup", { q: "x" })])],
      tools: [testTool("lookup")],
      config: { shouldStopAfterTurn: () => true },
    });
    const updates = events.filter(
      (event): event is Extract<AgentEvent, { type: "message_update" }> => event.type === "message_update",
    );
    expect(updates.length).toBeGreaterThan(3);
    for (const update of updates) {
      expect("partial" in update.assistantMessageEvent && update.assistantMessageEvent.partial).toBe(update.message);
    }
    expect(updates.map((update) => update.assistantMessageEvent.type)).toContain("toolcall_delta");
  });

  it("attaches the system prompt and the tools to every request", async () => {
    const { scripted } = await runLoopScenario({
      script: [response(toolCall("lookup")), "done"],
      tools: [testTool("lookup")],
      systemPrompt: "Be brief.",
    });
    for (const request of scripted.requests) {
      expect(request.context.systemPrompt).toBe("Be brief.");
      expect(request.context.tools?.map((tool) => tool.name)).toEqual(["lookup"]);
    }
  });

  it("runs transformContext, then convertToLlm, once per request, and sends what they return", async () => {
    const calls: string[] = [];
    const { scripted } = await runLoopScenario({
      script: [response(toolCall("lookup")), "done"],
      tools: [testTool("lookup")],
      config: {
        transformContext: async (messages, signal) => {
          calls.push(`transform:${messages.length}:${signal === undefined ? "no-signal" : "signal"}`);
          return [...messages, user("injected by transform")];
        },
        convertToLlm: (messages) => {
          calls.push(`convert:${messages.length}`);
          return providerMessagesOnly(messages);
        },
      },
      signal: new AbortController().signal,
    });
    expect(calls).toEqual(["transform:1:signal", "convert:2", "transform:3:signal", "convert:4"]);
    expect(requestText(scripted.requests[0]!)).toBe("go\ninjected by transform");
  });

  it("asks getApiKey on every request, with the model's provider", async () => {
    const asked: string[] = [];
    let n = 0;
    const { scripted } = await runLoopScenario({
      script: [response(toolCall("lookup")), response(toolCall("lookup")), "done"],
      tools: [testTool("lookup")],
      config: {
        getApiKey: (provider) => {
          asked.push(provider);
          n += 1;
          return `key-${n}`;
        },
      },
    });
    expect(asked).toEqual(["scripted", "scripted", "scripted"]);
    expect(scripted.requests.map((request) => request.options.apiKey)).toEqual(["key-1", "key-2", "key-3"]);
  });

  it("falls back to config.apiKey when getApiKey answers nothing", async () => {
    const { scripted } = await runLoopScenario({
      script: ["ok"],
      config: { apiKey: "static", getApiKey: () => undefined },
    });
    expect(scripted.requests[0]!.options.apiKey).toBe("static");
  });

  it("does not mutate the caller's context messages", async () => {
    const history: AgentMessage[] = [user("earlier"), assistantMessage("earlier answer")];
    const before = [...history];
    const scripted = createScriptedModel(["ok"]);
    const stream = agentLoop(
      [user("go")],
      { systemPrompt: "", messages: history },
      { model: scripted.model, convertToLlm: providerMessagesOnly },
      undefined,
      scripted.streamFn,
    );
    await stream.result();
    expect(history).toEqual(before);
    expect(history).toHaveLength(2);
    expect(requestText(scripted.requests[0]!)).toBe("earlier\ngo");
  });

  it("a stream that streams content but sends no start event still yields message_start and message_end", async () => {
    const final = assistantMessage("no start here");
    // A hand-written stream function that only delivers the terminal event.
    const events: AgentEvent[] = [];
    const stream = agentLoop(
      [user("go")],
      { systemPrompt: "", messages: [] },
      { model: createScriptedModel().model, convertToLlm: providerMessagesOnly },
      undefined,
      () => {
        const iterable = {
          async *[Symbol.asyncIterator]() {
            yield { type: "done" as const, reason: "stop" as const, message: final };
          },
          result: async () => final,
        };
        return iterable as never;
      },
    );
    for await (const event of stream) events.push(event);
    assertEventGrammar(events);
    expect(traceOf(events)).toEqual([
      "agent_start",
      "turn_start",
      "message_start:user",
      "message_end:user",
      "message_start:assistant",
      "message_end:assistant:stop",
      "turn_end:0",
      "agent_end",
    ]);
    const end = events.find((event) => event.type === "message_end" && event.message.role === "assistant");
    expect(end?.type === "message_end" && end.message).toBe(final);
  });
});

describe("behaviour L0: the event stream of agentLoop", () => {
  it("yields every event, ends after agent_end, and result() resolves to the new messages", async () => {
    const scripted = createScriptedModel([response([text("Hi"), toolCall("lookup", {}, { id: "c1" })]), "Bye"]);
    const stream = agentLoop(
      [user("go")],
      { systemPrompt: "", messages: [], tools: [testTool("lookup")] },
      { model: scripted.model, convertToLlm: providerMessagesOnly },
      undefined,
      scripted.streamFn,
    );
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    assertEventGrammar(events);
    const end = events[events.length - 1];
    expect(end?.type).toBe("agent_end");
    const result = await stream.result();
    expect(result).toBe(end?.type === "agent_end" ? end.messages : undefined);
    expect(result.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
  });

  it("agentLoopContinue runs from a user tail without adding a message", async () => {
    const scripted = createScriptedModel(["Continued"]);
    const stream = agentLoopContinue(
      { systemPrompt: "", messages: [user("pending question")] },
      { model: scripted.model, convertToLlm: providerMessagesOnly },
      undefined,
      scripted.streamFn,
    );
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    assertEventGrammar(events);
    expect(traceOf(events)).toEqual([
      "agent_start",
      "turn_start",
      "message_start:assistant",
      "message_end:assistant:stop",
      "turn_end:0",
      "agent_end",
    ]);
    const result = await stream.result();
    expect(result).toHaveLength(1);
    expect(firstText(result[0])).toBe("Continued");
    expect(requestText(scripted.requests[0]!)).toBe("pending question");
  });

  it("agentLoopContinue throws at once on an empty context or an assistant tail", () => {
    const scripted = createScriptedModel(["never"]);
    const config = { model: scripted.model, convertToLlm: providerMessagesOnly };
    expect(() => agentLoopContinue({ systemPrompt: "", messages: [] }, config, undefined, scripted.streamFn)).toThrow(
      "Cannot continue: no messages in context",
    );
    expect(() =>
      agentLoopContinue(
        { systemPrompt: "", messages: [user("q"), assistantMessage("a")] },
        config,
        undefined,
        scripted.streamFn,
      ),
    ).toThrow("Cannot continue from message role: assistant");
    expect(scripted.requests).toHaveLength(0);
  });

  it("the stream ends even when the model stream ends without a terminal event", async () => {
    const scripted = createScriptedModel([endWithoutDone("cut")]);
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
    expect((messages[1] as AssistantMessage).stopReason).toBe("error");
  });
});
