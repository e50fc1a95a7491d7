import {
  fauxAssistantMessage,
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
