import {
  fauxAssistantMessage,
  fauxText,
  fauxToolCall,
  registerFauxProvider,
  Type,
  type AssistantMessage,
  type FauxProviderRegistration,
} from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { Agent, agentLoop, type AgentEvent } from "../src/index.js";
import { assertEventGrammar, traceOf } from "./support/event-grammar.js";
import { firstText, providerMessagesOnly, testTool, textResult, user } from "./support/scenario.js";

describe("pi-ai's registerFauxProvider as the model (default streamSimple path)", () => {
  let faux: FauxProviderRegistration | undefined;
  afterEach(() => {
    faux?.unregister();
    faux = undefined;
  });

  it("an Agent without a streamFn runs a tool step and an answer against the faux provider", async () => {
    faux = registerFauxProvider({ api: "faux-agent-loop-test", provider: "faux-agent-loop-test" });
    faux.setResponses([
      fauxAssistantMessage([fauxToolCall("add", { a: "2", b: 3 }, { id: "add-1" })], { stopReason: "toolUse" }),
      (context) => {
        const result = context.messages.find((message) => message.role === "toolResult");
        return fauxAssistantMessage(`The sum is ${result && firstText(result)}`);
      },
    ]);
    const add = testTool("add", {
      parameters: Type.Object({ a: Type.Number(), b: Type.Number() }),
      execute: async (_id, params: { a: number; b: number }) => textResult(String(params.a + params.b)),
    });
    const agent = new Agent({ initialState: { model: faux.getModel(), tools: [add] } });
    const events: AgentEvent[] = [];
    agent.subscribe((event) => {
      events.push(event);
    });

    await agent.prompt("add 2 and 3");

    assertEventGrammar(events);
    expect(traceOf(events)).toContain("tool_execution_end:add-1");
    expect(events.some((event) => event.type === "message_update")).toBe(true);
    const final = agent.state.messages.at(-1) as AssistantMessage;
    expect(final.stopReason).toBe("stop");
    expect(firstText(final as never)).toBe("The sum is 5");
    expect(faux.state.callCount).toBe(2);
    expect(faux.getPendingResponseCount()).toBe(0);
  });

  it("agentLoop without a stream function uses the registered provider too", async () => {
    faux = registerFauxProvider({ api: "faux-agent-loop-test-2", provider: "faux-agent-loop-test-2" });
    faux.setResponses([fauxAssistantMessage("hello from faux")]);
    const stream = agentLoop(
      [user("hi")],
      { systemPrompt: "", messages: [] },
      { model: faux.getModel(), convertToLlm: providerMessagesOnly },
    );
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    assertEventGrammar(events);
    const messages = await stream.result();
    expect(firstText(messages.at(-1) as never)).toBe("hello from faux");
  });

  it("after unregister, a request fails as an error message and the run still ends", async () => {
    faux = registerFauxProvider({ api: "faux-agent-loop-test-3", provider: "faux-agent-loop-test-3" });
    const model = faux.getModel();
    faux.unregister();
    faux = undefined;
    const agent = new Agent({ initialState: { model } });
    await agent.prompt("hi");
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.errorMessage).toMatch(/No API provider/);
  });
});

describe("a response ended early keeps only what the listeners were shown", () => {
  let faux: FauxProviderRegistration | undefined;
  afterEach(() => {
    faux?.unregister();
    faux = undefined;
  });

  // pi-ai's providers (the faux one too) stream into one live message that
  // every event's partial points at, and go on writing into it while a
  // listener handles an event. Before, the failure message was a snapshot of
  // that object taken when the run failed: it held text of events never
  // delivered ("«r1» alpha beta" where the listener saw "«r1»").
  it("a listener that throws after the first delta: the failed message holds the text delivered", async () => {
    faux = registerFauxProvider({ api: "faux-shown-1", provider: "faux-shown-1", tokenSize: { min: 1, max: 1 } });
    faux.setResponses([fauxAssistantMessage("«r1» alpha beta gamma")]);
    const agent = new Agent({ initialState: { model: faux.getModel() } });
    let delivered = "";
    agent.subscribe((event) => {
      if (event.type !== "message_update" || event.assistantMessageEvent.type !== "text_delta") return;
      delivered += event.assistantMessageEvent.delta;
      throw new Error("the host listener failed");
    });

    await agent.prompt("hi");

    const final = agent.state.messages.at(-1) as AssistantMessage;
    expect(delivered).toBe("«r1»");
    expect(final.stopReason).toBe("error");
    expect(final.errorMessage).toBe("the host listener failed");
    expect(final.content).toEqual([{ type: "text", text: "«r1»" }]);
  });

  it("a listener that fails late, while the provider goes on writing: the failed message holds the text delivered", async () => {
    faux = registerFauxProvider({ api: "faux-shown-2", provider: "faux-shown-2", tokenSize: { min: 1, max: 1 } });
    faux.setResponses([fauxAssistantMessage([fauxText("«r2» alpha beta gamma delta")])]);
    const agent = new Agent({ initialState: { model: faux.getModel() } });
    let delivered = "";
    let deltas = 0;
    agent.subscribe(async (event) => {
      if (event.type !== "message_update" || event.assistantMessageEvent.type !== "text_delta") return;
      delivered += event.assistantMessageEvent.delta;
      if (++deltas !== 2) return;
      // The provider goes on writing while this listener waits.
      for (let tick = 0; tick < 20; tick++) await Promise.resolve();
      throw new Error("the host listener failed late");
    });

    await agent.prompt("hi");

    const final = agent.state.messages.at(-1) as AssistantMessage;
    expect(delivered).toBe("«r2» alp");
    expect(final.content).toEqual([{ type: "text", text: delivered }]);
  });
});
