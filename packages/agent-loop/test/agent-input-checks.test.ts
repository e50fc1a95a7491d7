import { describe, expect, it } from "vitest";
import {
  Agent,
  type AgentMessage,
  agentLoop,
  agentLoopContinue,
  runAgentLoop,
  runAgentLoopContinue,
} from "../src/index.js";
import { response, revokedProxy, throwingGetter, toolCall } from "../src/testing/index.js";
import { createAgentScenario, testTool, user } from "./support/scenario.js";

/** Any value, as a host without types might pass it. */
type Loose = any;

describe("the Agent refuses malformed input at the call, naming the field", () => {
  it.each<[string, (agent: Agent) => Promise<void>, string]>([
    [
      "a number",
      (agent) => agent.prompt(123 as Loose),
      "input must be text, a message or an array of messages, got 123",
    ],
    ["null", (agent) => agent.prompt(null as Loose), "input must be text, a message or an array of messages, got null"],
    [
      "a message without a role",
      (agent) => agent.prompt({ content: "x" } as Loose),
      "message.role must be a string, got undefined",
    ],
    [
      "a user message whose content is a number",
      (agent) => agent.prompt({ role: "user", content: 5, timestamp: 1 } as Loose),
      "message.content must be a string or an array of content blocks, got 5",
    ],
    [
      "an array holding null",
      (agent) => agent.prompt([user("a"), null] as Loose),
      "messages[1] must be a message object with a role, got null",
    ],
    [
      "a text block without its text",
      (agent) => agent.prompt([{ role: "user", content: [{ type: "text" }], timestamp: 1 }] as Loose),
      "messages[0].content[0].text must be a string, got undefined",
    ],
    [
      "images that are no list",
      (agent) => agent.prompt("hi", "img" as Loose),
      'images must be an array of image blocks, got "img"',
    ],
    [
      "an image without its data",
      (agent) => agent.prompt("hi", [{ type: "image", mimeType: "image/png" }] as Loose),
      "images[0].data must be a string, got undefined",
    ],
    [
      "a value that cannot be read",
      (agent) => agent.prompt(revokedProxy() as Loose),
      "message must be a message object with a role, got an unreadable value",
    ],
    [
      "images that cannot be read",
      (agent) => agent.prompt("hi", revokedProxy() as Loose),
      "images must be an array of image blocks, got an unreadable value",
    ],
  ])("prompt(%s) rejects with a TypeError before anything runs", async (_name, call, message) => {
    const { agent, events, scripted } = createAgentScenario(["never asked"]);
    const failure = await call(agent).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as Error).message).toBe(`Agent.prompt: ${message}`);
    expect(events).toEqual([]);
    expect(scripted.requests).toHaveLength(0);
    expect(agent.state.messages).toEqual([]);
    expect(agent.state.isStreaming).toBe(false);
  });

  it("steer, followUp and steerBatch throw at the call and queue nothing; a good message after them runs", async () => {
    const { agent, scripted } = createAgentScenario(["answer"]);
    expect(() => agent.steer(null as Loose)).toThrow(
      new TypeError("Agent.steer: message must be a message object with a role, got null"),
    );
    expect(() => agent.followUp("later" as Loose)).toThrow(
      new TypeError('Agent.followUp: message must be a message object with a role, got "later"'),
    );
    expect(() => agent.steerBatch([user("a"), { role: "user", content: [{ type: "image" }] }] as Loose)).toThrow(
      new TypeError("Agent.steerBatch: messages[1].content[0].data must be a string, got undefined"),
    );
    expect(() => agent.steerBatch("a" as Loose)).toThrow(
      new TypeError('Agent.steerBatch: messages must be an array of messages, got "a"'),
    );
    expect(agent.hasQueuedMessages()).toBe(false);
    await agent.prompt("go");
    expect(scripted.requests).toHaveLength(1);
    expect(agent.state.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
  });

  it("state.messages and state.tools refuse what is not a list of messages or tools and keep what they had", () => {
    const tool = testTool("work");
    const { agent } = createAgentScenario([], { tools: [tool] });
    agent.state.messages = [user("kept")];
    expect(() => {
      agent.state.messages = null as Loose;
    }).toThrow(new TypeError("Agent.state: messages must be an array of messages, got null"));
    expect(() => {
      agent.state.messages = [user("a"), { role: "assistant", content: "text" }] as Loose;
    }).toThrow(new TypeError('Agent.state: messages[1].content must be an array of content blocks, got "text"'));
    expect(() => {
      agent.state.tools = [tool, { name: "half" }] as Loose;
    }).toThrow(new TypeError("Agent.state: tools[1].execute must be a function, got undefined"));
    expect(() => {
      agent.state.tools = "x" as Loose;
    }).toThrow(new TypeError('Agent.state: tools must be an array of tools, got "x"'));
    expect(() => {
      agent.state.tools = [{ ...tool, parameters: undefined }] as Loose;
    }).toThrow(new TypeError("Agent.state: tools[0].parameters must be a JSON schema object, got undefined"));
    expect(agent.state.messages).toEqual([user("kept")]);
    expect(agent.state.tools).toEqual([tool]);
    expect(() => new Agent({ initialState: { messages: [{ role: "toolResult", content: [] }] as Loose } })).toThrow(
      new TypeError("Agent.state: messages[0].toolCallId must be a string, got undefined"),
    );
    expect(() => new Agent({ initialState: { tools: revokedProxy() as Loose } })).toThrow(
      new TypeError("Agent.state: tools must be an array of tools, got an unreadable value"),
    );
  });

  it("a host's own message role passes unchecked", async () => {
    const { agent, scripted } = createAgentScenario(["noted"]);
    const note = { role: "note", anything: 5 } as unknown as AgentMessage;
    await agent.prompt([user("go"), note]);
    expect(scripted.requests).toHaveLength(1);
    expect(agent.state.messages).toContain(note);
  });
});

describe("a tool's malformed answer becomes an error result naming the field", () => {
  it.each<[string, () => unknown, string]>([
    [
      "content that is text",
      () => ({ content: "x", details: {} }),
      'content must be an array of content blocks, got "x"',
    ],
    ["no answer", () => undefined, "expected { content, details }, got undefined"],
    [
      "a text block whose text is a number",
      () => ({ content: [{ type: "text", text: 5 }] }),
      "content[0].text must be a string, got 5",
    ],
  ])("%s", async (_name, answer, problem) => {
    const { agent } = createAgentScenario([response(toolCall("work", {})), "done"], {
      tools: [testTool("work", { execute: async () => answer() as never })],
    });
    await agent.prompt("go");
    const result = agent.state.messages.find((message) => message.role === "toolResult");
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: `Tool work returned a malformed result: ${problem}` }],
    });
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
  });

  it.each<[string, () => unknown, string]>([
    ["a revoked proxy", () => revokedProxy(), "a value that cannot be read (a revoked proxy)"],
    [
      "a result whose content getter throws (its own text is kept)",
      () => throwingGetter("content"),
      "content getter failed",
    ],
  ])("an answer no code can read, %s, is an error result in words, not the engine's", async (_name, answer, text) => {
    const { agent } = createAgentScenario([response(toolCall("work", {})), "done"], {
      tools: [testTool("work", { execute: async () => answer() as never })],
    });
    await agent.prompt("go");
    const result = agent.state.messages.find((message) => message.role === "toolResult");
    expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: expect.stringContaining(text) }] });
    expect(JSON.stringify(result)).not.toMatch(/proxy that has been revoked/);
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
  });

  it("afterToolCall content that is no list of blocks is an error result too", async () => {
    const { agent } = createAgentScenario([response(toolCall("work", {})), "done"], {
      tools: [testTool("work")],
      afterToolCall: async () => ({ content: [{ type: "image", data: "x" }] as never }),
    });
    await agent.prompt("go");
    expect(agent.state.messages.find((message) => message.role === "toolResult")).toMatchObject({
      isError: true,
      content: [
        {
          type: "text",
          text: "afterToolCall returned malformed content: content[0].mimeType must be a string, got undefined",
        },
      ],
    });
  });
});

describe("the Agent refuses options of the wrong kind, naming the option", () => {
  it.each<[string, Loose, string]>([
    [
      "a queue mode it does not have",
      { steeringMode: "bogus" },
      'steeringMode must be one of "one-at-a-time", "all", got "bogus"',
    ],
    [
      "a tool execution mode it does not have",
      { toolExecution: "serial" },
      'toolExecution must be one of "parallel", "sequential", got "serial"',
    ],
    [
      "a transport pi-ai does not have",
      { transport: "http" },
      'transport must be one of "sse", "websocket", "auto", got "http"',
    ],
    ["a stream function that is no function", { streamFn: "x" }, 'streamFn must be a function, got "x"'],
    ["a hook that is no function", { beforeToolCall: {} }, "beforeToolCall must be a function, got object"],
    ["no options object", null, "options must be an object, got null"],
    ["an initial state that is no object", { initialState: null }, "initialState must be an object, got null"],
    [
      "an initial state that cannot be read",
      { initialState: revokedProxy() },
      "initialState must be an object, got an unreadable value",
    ],
    [
      "an initial model that cannot be read",
      { initialState: { model: revokedProxy() } },
      "initialState.model must be a model object, got an unreadable value",
    ],
    [
      "an initial model that is no object",
      { initialState: { model: "gpt" } },
      'initialState.model must be a model object, got "gpt"',
    ],
    [
      "an initial model whose provider cannot be read",
      { initialState: { model: throwingGetter("provider") } },
      "initialState.model.provider could not be read: provider getter failed",
    ],
  ])("%s", (_name, options, message) => {
    expect(() => new Agent(options)).toThrow(new TypeError(`Agent: ${message}`));
  });

  it("the queue mode setters refuse a mode they do not have and keep the old one", () => {
    const agent = new Agent({ followUpMode: "all" });
    expect(() => {
      agent.followUpMode = "many" as Loose;
    }).toThrow(new TypeError('Agent: followUpMode must be one of "one-at-a-time", "all", got "many"'));
    expect(agent.followUpMode).toBe("all");
  });
});

describe("the stateless loop refuses malformed prompts before any event", () => {
  const context = { systemPrompt: "", messages: [], tools: [] };

  it("agentLoop throws a TypeError at the call; runAgentLoop rejects with one; no request is made", async () => {
    const { scripted } = createAgentScenario(["never asked"]);
    const config = { model: scripted.model, convertToLlm: (messages: AgentMessage[]) => messages as never };
    const events: string[] = [];
    expect(() =>
      agentLoop([user("a"), { role: "user", content: 5 }] as Loose, context, config, undefined, scripted.streamFn),
    ).toThrow(new TypeError("agentLoop: prompts[1].content must be a string or an array of content blocks, got 5"));
    await expect(
      runAgentLoop(
        [null] as Loose,
        context,
        config,
        (event) => void events.push(event.type),
        undefined,
        scripted.streamFn,
      ),
    ).rejects.toThrow(new TypeError("runAgentLoop: prompts[0] must be a message object with a role, got null"));
    expect(events).toEqual([]);
    expect(scripted.requests).toHaveLength(0);
  });
});

describe("the stateless loop refuses a malformed context before any event", () => {
  const config = (scripted: { model: unknown }) => ({
    model: scripted.model as never,
    convertToLlm: (messages: AgentMessage[]) => messages as never,
  });

  it("names the message field, the tool field or the system prompt, from each of the four entries", async () => {
    const { scripted } = createAgentScenario(["never asked"]);
    const events: string[] = [];
    const sink = (event: { type: string }) => void events.push(event.type);
    const badMessage = { systemPrompt: "", messages: [user("a"), { role: "user", content: [{ type: "text" }] }] };
    expect(() => agentLoop([user("b")], badMessage as Loose, config(scripted), undefined, scripted.streamFn)).toThrow(
      new TypeError("agentLoop: context.messages[1].content[0].text must be a string, got undefined"),
    );
    expect(() => agentLoopContinue({ systemPrompt: "", messages: 5 } as Loose, config(scripted))).toThrow(
      new TypeError("agentLoopContinue: context.messages must be an array of messages, got 5"),
    );
    const badTool = { systemPrompt: "", messages: [user("a")], tools: [{ name: "t", parameters: {} }] };
    await expect(
      runAgentLoop([user("b")], badTool as Loose, config(scripted), sink, undefined, scripted.streamFn),
    ).rejects.toThrow(new TypeError("runAgentLoop: context.tools[0].execute must be a function, got undefined"));
    await expect(
      runAgentLoopContinue(
        { systemPrompt: 7, messages: [user("a")] } as Loose,
        config(scripted),
        sink,
        undefined,
        scripted.streamFn,
      ),
    ).rejects.toThrow(new TypeError("runAgentLoopContinue: context.systemPrompt must be a string, got 7"));
    await expect(
      runAgentLoopContinue(null as Loose, config(scripted), sink, undefined, scripted.streamFn),
    ).rejects.toThrow(/^runAgentLoopContinue: context must be an object/);
    expect(events).toEqual([]);
    expect(scripted.requests).toHaveLength(0);
  });

  it("runs a well-formed context with a host's own message role", async () => {
    const { scripted } = createAgentScenario(["hello"]);
    const context = { systemPrompt: "", messages: [{ role: "notice", note: 1 }, user("a")], tools: [] };
    const added = await runAgentLoopContinue(
      context as Loose,
      { model: scripted.model, convertToLlm: (messages) => messages.filter((m) => m.role === "user") as never },
      () => {},
      undefined,
      scripted.streamFn,
    );
    expect(added.map((message) => message.role)).toEqual(["assistant"]);
  });
});
