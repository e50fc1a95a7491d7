import { streamSimple, type AssistantMessage } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { Agent, type AgentEvent, type AgentMessage } from "../src/index.js";
import {
  assistantMessage,
  createScriptedModel,
  hang,
  requestText,
  response,
  throwSync,
  toolCall,
  userMessage,
} from "../src/testing/index.js";
import { assertEventGrammar } from "./support/event-grammar.js";
import { createAgentScenario, deferred, firstText, flush, testTool, textResult, user } from "./support/scenario.js";

declare module "../src/index.js" {
  interface CustomAgentMessages {
    notice: { role: "notice"; text: string; timestamp: number };
  }
}

describe("behaviour L8: Agent state during and after a run", () => {
  it("isStreaming, streamingMessage and pendingToolCalls follow the run; all clear afterwards", async () => {
    const toolRunning = deferred();
    const release = deferred();
    const tool = testTool("work", {
      execute: async () => {
        toolRunning.resolve();
        await release.promise;
        return textResult("worked");
      },
    });
    const { agent, takeRun } = createAgentScenario([response([toolCall("work", {}, { id: "w" })]), "All done"], {
      tools: [tool],
    });
    const streamingTexts: string[] = [];
    agent.subscribe((event) => {
      if (event.type === "message_update") {
        expect(agent.state.isStreaming).toBe(true);
        expect(agent.state.streamingMessage).toBe(event.message);
        const content = (agent.state.streamingMessage as AssistantMessage).content;
        const block = content[0];
        if (block?.type === "text") streamingTexts.push(block.text);
      }
    });

    expect(agent.state.isStreaming).toBe(false);
    const run = agent.prompt("go");
    expect(agent.state.isStreaming).toBe(true);
    await toolRunning.promise;
    expect([...agent.state.pendingToolCalls]).toEqual(["w"]);
    release.resolve();
    await run;
    takeRun();

    expect(streamingTexts).toEqual(["", "All", "All done", "All done"]);
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.streamingMessage).toBeUndefined();
    expect(agent.state.pendingToolCalls.size).toBe(0);
    expect(agent.state.errorMessage).toBeUndefined();
    expect(agent.state.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
  });

  it("errorMessage is set by a failed response and cleared when the next run starts", async () => {
    const { agent } = createAgentScenario([
      response("", { stopReason: "error", errorMessage: "rate limited" }),
      "fine now",
    ]);
    await agent.prompt("first");
    expect(agent.state.errorMessage).toBe("rate limited");
    const run = agent.prompt("second");
    expect(agent.state.errorMessage).toBeUndefined();
    await run;
    expect(agent.state.errorMessage).toBeUndefined();
  });

  it("the transcript is exactly the message_end messages", async () => {
    const { agent, events } = createAgentScenario([response(toolCall("work")), "done"], { tools: [testTool("work")] });
    await agent.prompt("go");
    const ended = events.flatMap((event) => (event.type === "message_end" ? [event.message] : []));
    expect(agent.state.messages).toEqual(ended);
    expect(agent.state.messages.every((message, index) => message === ended[index])).toBe(true);
  });

  it("setters copy the arrays; initialState is copied too", () => {
    const tools = [testTool("a")];
    const messages: AgentMessage[] = [user("one")];
    const agent = new Agent({ initialState: { tools, messages } });
    tools.push(testTool("b"));
    messages.push(user("two"));
    expect(agent.state.tools).toHaveLength(1);
    expect(agent.state.messages).toHaveLength(1);

    const nextMessages: AgentMessage[] = [user("x")];
    agent.state.messages = nextMessages;
    nextMessages.push(user("y"));
    expect(agent.state.messages).toHaveLength(1);
    expect(agent.state.messages).not.toBe(nextMessages);

    const nextTools = [testTool("c")];
    agent.state.tools = nextTools;
    nextTools.push(testTool("d"));
    expect(agent.state.tools.map((tool) => tool.name)).toEqual(["c"]);
  });

  it("reset() clears the transcript, runtime state and both queues", async () => {
    const { agent } = createAgentScenario([response("", { stopReason: "error", errorMessage: "bad" })]);
    await agent.prompt("go");
    agent.steer(user("s"));
    agent.followUp(user("f"));
    agent.reset();
    expect(agent.state.messages).toEqual([]);
    expect(agent.state.errorMessage).toBeUndefined();
    expect(agent.hasQueuedMessages()).toBe(false);
  });

  it("has pi's defaults: streamFn is streamSimple, transport auto, parallel tools, one-at-a-time queues", () => {
    const agent = new Agent();
    expect(agent.streamFn).toBe(streamSimple);
    expect(agent.transport).toBe("auto");
    expect(agent.toolExecution).toBe("parallel");
    expect(agent.steeringMode).toBe("one-at-a-time");
    expect(agent.followUpMode).toBe("one-at-a-time");
    expect(agent.state.thinkingLevel).toBe("off");
  });

  it("forwards its options to every request (sessionId, reasoning, transport, apiKey from getApiKey)", async () => {
    let keys = 0;
    const { agent, scripted } = createAgentScenario([response(toolCall("work")), "done"], {
      tools: [testTool("work")],
      sessionId: "session-1",
      transport: "sse",
      getApiKey: () => `key-${(keys += 1)}`,
      initialState: { thinkingLevel: "high" },
    });
    await agent.prompt("go");
    expect(scripted.requests.map((request) => request.options.apiKey)).toEqual(["key-1", "key-2"]);
    for (const request of scripted.requests) {
      expect(request.options).toMatchObject({ sessionId: "session-1", reasoning: "high", transport: "sse" });
      expect(request.hasSignal).toBe(true);
    }
  });

  it("hands every request the option keys pi's Agent does, plus only the three hooks pi lacks (undefined unless given)", async () => {
    const piKeys = [
      "afterToolCall",
      "apiKey",
      "beforeToolCall",
      "convertToLlm",
      "getApiKey",
      "getFollowUpMessages",
      "getSteeringMessages",
      "maxRetryDelayMs",
      "model",
      "onPayload",
      "onResponse",
      "reasoning",
      "sessionId",
      "signal",
      "thinkingBudgets",
      "toolExecution",
      "transformContext",
      "transport",
    ];
    const turnkitHooks = ["onToolExecutionStart", "shouldStopAfterSteering", "shouldStopAfterTurn"];
    const { agent } = createAgentScenario(["plain"]);
    const inner = agent.streamFn;
    let options: Record<string, unknown> = {};
    agent.streamFn = (model, context, given) => {
      options = { ...given };
      return inner(model, context, given);
    };
    await agent.prompt("go");
    expect(Object.keys(options).sort()).toEqual([...piKeys, ...turnkitHooks].sort());
    for (const hook of turnkitHooks) expect(options[hook]).toBeUndefined();
  });

  it("a wrapped streamFn is used for the next run (hosts compose stream functions)", async () => {
    const { agent, scripted } = createAgentScenario(["wrapped"]);
    const inner = agent.streamFn;
    let calls = 0;
    agent.streamFn = (...args) => {
      calls += 1;
      return inner(...args);
    };
    await agent.prompt("go");
    expect(calls).toBe(1);
    expect(scripted.requests).toHaveLength(1);
  });

  it("the default convertToLlm drops custom messages", async () => {
    const { agent, scripted } = createAgentScenario(["ok"]);
    agent.state.messages = [{ role: "notice", text: "UI only", timestamp: 1 }];
    await agent.prompt("go");
    expect(scripted.requests[0]!.context.messages.map((message) => message.role)).toEqual(["user"]);
    expect(agent.state.messages[0]!.role).toBe("notice");
  });
});

describe("behaviour L8: prompt() and continue()", () => {
  it("prompt accepts text with images, one message, or several", async () => {
    const { agent, scripted } = createAgentScenario(["a", "b", "c"]);
    await agent.prompt("look", [{ type: "image", data: "AAAA", mimeType: "image/png" }]);
    await agent.prompt(userMessage("one message"));
    await agent.prompt([userMessage("first of two"), userMessage("second of two")]);
    expect(scripted.requests[0]!.context.messages[0]).toMatchObject({
      role: "user",
      content: [
        { type: "text", text: "look" },
        { type: "image", mimeType: "image/png" },
      ],
    });
    expect(requestText(scripted.requests[2]!)).toBe("look\none message\nfirst of two\nsecond of two");
  });

  it("prompt() and continue() while running reject with a message pointing at steer() and followUp()", async () => {
    const { agent } = createAgentScenario([hang()]);
    const run = agent.prompt("go");
    await expect(agent.prompt("again")).rejects.toThrow(/steer\(\).*followUp\(\)/);
    await expect(agent.continue()).rejects.toThrow(/steer\(\).*followUp\(\)/);
    agent.abort();
    await run;
    expect(agent.state.messages.filter((message) => message.role === "user")).toHaveLength(1);
  });

  it("continue() on a user tail requests a response without adding a message", async () => {
    const { agent, scripted, takeRun } = createAgentScenario(["answer"]);
    agent.state.messages = [user("pending")];
    await agent.continue();
    takeRun();
    expect(requestText(scripted.requests[0]!)).toBe("pending");
    expect(agent.state.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
  });

  it("continue() on an assistant tail runs queued steering first (without a second steering poll)", async () => {
    const { agent, scripted } = createAgentScenario(["to steering", "to next steering", "to follow-up"]);
    agent.state.messages = [user("q"), assistantMessage("a")];
    agent.steer(user("steer one"));
    agent.steer(user("steer two"));
    agent.followUp(user("follow"));
    await agent.continue();
    // "steer one" is the prompt (no poll before it would take "steer two" too);
    // "steer two" comes from the poll after the step, then the follow-up.
    expect(scripted.requests.map(requestText)).toEqual([
      "q\nsteer one",
      "q\nsteer one\nsteer two",
      "q\nsteer one\nsteer two\nfollow",
    ]);
    expect(agent.hasQueuedMessages()).toBe(false);
  });

  it("continue() on an assistant tail runs queued follow-ups when no steering is queued", async () => {
    const { agent, scripted } = createAgentScenario(["to follow-up"]);
    agent.state.messages = [user("q"), assistantMessage("a")];
    agent.followUp(user("follow"));
    await agent.continue();
    expect(requestText(scripted.requests[0]!)).toBe("q\nfollow");
    expect(agent.hasQueuedMessages()).toBe(false);
  });

  it("continue() on an assistant tail with nothing queued throws; on an empty transcript too", async () => {
    const { agent, scripted } = createAgentScenario(["never"]);
    await expect(agent.continue()).rejects.toThrow("No messages to continue from");
    agent.state.messages = [user("q"), assistantMessage("a")];
    await expect(agent.continue()).rejects.toThrow("Cannot continue from message role: assistant");
    expect(scripted.requests).toHaveLength(0);
    expect(agent.state.isStreaming).toBe(false);
  });
});

describe("behaviour L8: listeners", () => {
  it("async listeners are awaited one at a time, in subscription order, for every event", async () => {
    const { agent } = createAgentScenario([response(toolCall("work")), "done"], { tools: [testTool("work")] });
    const log: string[] = [];
    let inside = 0;
    const make = (name: string) => async (event: AgentEvent) => {
      inside += 1;
      expect(inside).toBe(1);
      log.push(`${name}>${event.type}`);
      await new Promise((resolve) => setTimeout(resolve, name === "A" ? 2 : 0));
      log.push(`${name}<${event.type}`);
      inside -= 1;
    };
    agent.subscribe(make("A"));
    agent.subscribe(make("B"));
    await agent.prompt("go");
    for (let index = 0; index < log.length; index += 4) {
      const type = log[index]!.slice(2);
      expect(log.slice(index, index + 4)).toEqual([`A>${type}`, `A<${type}`, `B>${type}`, `B<${type}`]);
    }
    expect(log.at(-1)).toBe("B<agent_end");
  });

  it("listeners receive the run's signal; prompt() and waitForIdle() settle after every agent_end listener", async () => {
    const { agent } = createAgentScenario(["done"]);
    const endListener = deferred();
    let finished = false;
    const signals = new Set<AbortSignal>();
    agent.subscribe(async (event, signal) => {
      signals.add(signal);
      if (event.type === "agent_end") {
        await endListener.promise;
        finished = true;
      }
    });
    const run = agent.prompt("go");
    const idle = agent.waitForIdle();
    let settled = false;
    void Promise.all([run, idle]).then(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(settled).toBe(false);
    expect(agent.state.isStreaming).toBe(true);
    endListener.resolve();
    await run;
    await idle;
    expect(finished).toBe(true);
    expect(signals.size).toBe(1);
    expect(await agent.waitForIdle()).toBeUndefined();
  });

  it("synchronous listeners run without being awaited, still strictly in order", async () => {
    const { agent } = createAgentScenario(["a b c"]);
    const log: string[] = [];
    agent.subscribe((event) => {
      log.push(`1:${event.type}`);
    });
    agent.subscribe((event) => {
      log.push(`2:${event.type}`);
    });
    await agent.prompt("go");
    expect(log.length % 2).toBe(0);
    for (let index = 0; index < log.length; index += 2) {
      expect(log[index]!.slice(2)).toBe(log[index + 1]!.slice(2));
      expect([log[index]![0], log[index + 1]![0]]).toEqual(["1", "2"]);
    }
  });

  it("subscribing the same function twice delivers each event once (as pi's listener set)", async () => {
    const { agent } = createAgentScenario(["a"]);
    const seen: string[] = [];
    const listener = (event: AgentEvent) => {
      seen.push(event.type);
    };
    agent.subscribe(listener);
    const unsubscribe = agent.subscribe(listener);
    await agent.prompt("one");
    expect(seen.filter((type) => type === "agent_end")).toHaveLength(1);
    unsubscribe();
    seen.length = 0;
    agent.state.messages = [user("again")];
    await agent.continue().catch(() => undefined);
    expect(seen).toEqual([]);
  });

  it("unsubscribe stops delivery", async () => {
    const { agent } = createAgentScenario(["a", "b"]);
    const seen: string[] = [];
    const unsubscribe = agent.subscribe((event) => {
      seen.push(event.type);
    });
    await agent.prompt("one");
    const count = seen.length;
    unsubscribe();
    await agent.prompt("two");
    expect(seen).toHaveLength(count);
  });

  it("a listener that throws ends the run with the failure lifecycle; the agent is not left streaming", async () => {
    const { agent, takeRun, scripted } = createAgentScenario([response("one two three"), "second run works"]);
    let armed = true;
    agent.subscribe((event) => {
      if (armed && event.type === "message_update") {
        armed = false;
        throw new Error("listener exploded");
      }
    });
    await agent.prompt("go");
    const run = takeRun();
    expect(run.at(-1)?.type).toBe("agent_end");
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.errorMessage).toBe("listener exploded");
    const last = agent.state.messages.at(-1) as AssistantMessage;
    expect(last).toMatchObject({ role: "assistant", stopReason: "error", errorMessage: "listener exploded" });

    await agent.prompt("again");
    takeRun();
    expect(firstText(agent.state.messages.at(-1) as never)).toBe("second run works");
    expect(scripted.requests).toHaveLength(2);
  });

  it("an async listener that rejects behaves the same", async () => {
    const { agent, takeRun } = createAgentScenario(["hello"]);
    agent.subscribe(async (event) => {
      if (event.type === "turn_start") throw new Error("async listener failed");
    });
    await agent.prompt("go");
    takeRun();
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.errorMessage).toBe("async listener failed");
    expect(agent.state.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
  });

  it("a stream function that throws leaves the agent idle with an error message", async () => {
    const { agent, takeRun } = createAgentScenario([throwSync(new Error("no network"))]);
    await agent.prompt("go");
    takeRun();
    expect(agent.state.isStreaming).toBe(false);
    expect(agent.state.errorMessage).toBe("no network");
  });
});

describe("behaviour L8: tool execution options", () => {
  it("toolExecution: sequential on the agent runs calls one at a time", async () => {
    let running = 0;
    let maxRunning = 0;
    const tool = testTool("t", {
      execute: async () => {
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        await flush();
        running -= 1;
        return textResult("ok");
      },
    });
    const { agent } = createAgentScenario([response([toolCall("t"), toolCall("t")]), "done"], {
      tools: [tool],
      toolExecution: "sequential",
    });
    await agent.prompt("go");
    expect(maxRunning).toBe(1);
  });

  it("beforeToolCall, afterToolCall, onToolExecutionStart and shouldStopAfterTurn are used by runs", async () => {
    const seen: string[] = [];
    const { agent, scripted } = createAgentScenario([response(toolCall("work", {}, { id: "w" })), "never"], {
      tools: [testTool("work")],
      beforeToolCall: async () => {
        seen.push("before");
        return undefined;
      },
      onToolExecutionStart: () => {
        seen.push("onStart");
      },
      afterToolCall: async () => {
        seen.push("after");
        return { content: [{ type: "text", text: "patched" }] };
      },
      shouldStopAfterTurn: () => {
        seen.push("stop?");
        return true;
      },
    });
    await agent.prompt("go");
    expect(seen).toEqual(["before", "onStart", "after", "stop?"]);
    expect(scripted.requests).toHaveLength(1);
    expect(firstText(agent.state.messages.at(-1))).toBe("patched");
  });
});

describe("behaviour L8: the scripted model drives an Agent end to end", () => {
  it("every run of a multi-run session passes the grammar check", async () => {
    const scripted = createScriptedModel([response(toolCall("work")), "one", "two"]);
    const agent = new Agent({
      initialState: { model: scripted.model, tools: [testTool("work")] },
      streamFn: scripted.streamFn,
    });
    for (const prompt of ["first", "second"]) {
      const events: AgentEvent[] = [];
      const unsubscribe = agent.subscribe((event) => {
        events.push(event);
      });
      await agent.prompt(prompt);
      unsubscribe();
      assertEventGrammar(events);
    }
    expect(agent.state.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "user",
      "assistant",
    ]);
  });
});
