import { assistantMessage, response, toolCall, toolResultMessage } from "@turnkit/agent-loop/testing";
import type { HostAgent } from "../implementations.js";
import { keepProviderMessages } from "../scenario-runner.js";
import { defineScenario } from "../scenario.js";
import { user } from "../scenario-messages.js";
import { defineTool, echoTool, textResult } from "../scenario-tools.js";
import { assertLinesInOrder, assertLineCount } from "../trace-assertions.js";

/** The stateful `Agent` (behaviour L8) and `agentLoopContinue` (behaviour L0). */
export const AGENT_API_SCENARIOS = [
  defineScenario({
    id: "continue-assistant-tail-follow-up",
    title: "continue() on an assistant tail runs a queued follow-up",
    spec: ["L8"],
    surfaces: ["agent"],
    script: () => [response("First answer."), response("Follow-up answer.")],
    async run(ctx) {
      const agent = ctx.createAgent();
      await ctx.settle("prompt()", agent.prompt("First"));
      agent.followUp(user("One more thing"));
      await ctx.settle("continue()", agent.continue());
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        "prompt() resolved",
        "agent_start",
        'message_end user [text "One more thing"]',
        'request 2: [user "First", assistant(stop), user "One more thing"]',
        "agent_end [user, assistant(stop)]",
        "continue() resolved",
      ]),
  }),
  defineScenario({
    id: "continue-assistant-tail-steering",
    title:
      "continue() on an assistant tail with two queued steers: the first starts the run, the second is polled after it",
    spec: ["L8"],
    surfaces: ["agent"],
    script: () => [response("First answer."), response("Got steer one."), response("Got steer two.")],
    async run(ctx) {
      const agent = ctx.createAgent();
      await ctx.settle("prompt()", agent.prompt("First"));
      agent.steer(user("Steer one"));
      agent.steer(user("Steer two"));
      await ctx.settle("continue()", agent.continue());
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        "prompt() resolved",
        'message_end user [text "Steer one"]',
        'request 2: [user "First", assistant(stop), user "Steer one"]',
        'message_end user [text "Steer two"]',
        "request 3: …",
        "continue() resolved",
      ]),
  }),
  defineScenario({
    id: "continue-with-nothing-to-run",
    title: "continue() with an empty transcript, and on an assistant tail with empty queues, throws",
    spec: ["L8"],
    surfaces: ["agent"],
    script: () => [response("Only answer.")],
    async run(ctx) {
      const agent = ctx.createAgent();
      await ctx.settle("continue() on an empty transcript", agent.continue());
      await ctx.settle("prompt()", agent.prompt("Hi"));
      await ctx.settle("continue() on an assistant tail", agent.continue());
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        "continue() on an empty transcript rejected: No messages to continue from",
        "prompt() resolved",
        "continue() on an assistant tail rejected: Cannot continue from message role: assistant",
      ]),
  }),
  defineScenario({
    id: "prompt-while-running",
    title: "prompt() while a run is active throws and tells the caller to use steer() or followUp()",
    spec: ["L8"],
    surfaces: ["agent"],
    script: () => [response(toolCall("work", {})), response("Done.")],
    async run(ctx) {
      let agent: HostAgent | undefined;
      const work = defineTool({
        name: "work",
        execute: async () => {
          await ctx.settle("prompt() while running", () => agent!.prompt("Interrupt"));
          return textResult("worked");
        },
      });
      agent = ctx.createAgent({ initialState: { tools: [work] } });
      await ctx.settle("prompt()", agent.prompt("Work"));
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        "prompt() while running rejected: Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.",
        "prompt() resolved",
      ]),
  }),
  defineScenario({
    id: "continue-while-running",
    title: "continue() while a run is active throws",
    spec: ["L8"],
    surfaces: ["agent"],
    script: () => [response(toolCall("work", {})), response("Done.")],
    async run(ctx) {
      let agent: HostAgent | undefined;
      const work = defineTool({
        name: "work",
        execute: async () => {
          await ctx.settle("continue() while running", () => agent!.continue());
          return textResult("worked");
        },
      });
      agent = ctx.createAgent({ initialState: { tools: [work] } });
      await ctx.settle("prompt()", agent.prompt("Work"));
    },
  }),
  defineScenario({
    id: "subscribe-during-delivery",
    title:
      "listeners added or removed while an event is handed out: an added one gets that event, a removed one does not",
    spec: ["L8"],
    surfaces: ["agent"],
    script: () => [response("Hi there."), response("Again.")],
    async run(ctx) {
      const agent = ctx.createAgent();
      let added = false;
      let unsubscribeLater: (() => void) | undefined;
      agent.subscribe((event) => {
        if (event.type === "message_start" && !added) {
          added = true;
          agent.subscribe((later) => ctx.note(`added listener ${later.type}`));
        }
        if (event.type === "turn_end") unsubscribeLater?.();
      });
      unsubscribeLater = agent.subscribe((event) => ctx.note(`later listener ${event.type}`));
      await ctx.settle("prompt()", agent.prompt("Hello"));
      await ctx.settle("second prompt()", agent.prompt("Again"));
    },
    then: (trace) => {
      assertLinesInOrder(trace, [
        'message_start user [text "Hello"]',
        "· later listener message_start",
        "· added listener message_start",
        "turn_end assistant(stop) results=[]",
        "· added listener turn_end",
        "agent_end [user, assistant(stop)]",
      ]);
      // Removed at the first turn_end, before its own turn: it never sees a turn_end.
      assertLineCount(trace, "· later listener turn_end", 0);
    },
  }),
  defineScenario({
    id: "listener-order-async",
    title: "listeners are awaited in subscription order; prompt() settles after the last agent_end listener",
    spec: ["L8"],
    surfaces: ["agent"],
    script: () => [response("Hi.")],
    async run(ctx) {
      const agent = ctx.createAgent();
      const watched = new Set(["agent_start", "turn_end", "agent_end"]);
      agent.subscribe(async (event) => {
        if (!watched.has(event.type)) return;
        ctx.note(`slow listener begins ${event.type}`);
        for (let tick = 0; tick < 5; tick += 1) await Promise.resolve();
        await new Promise((resolve) => setImmediate(resolve));
        ctx.note(`slow listener ends ${event.type}`);
      });
      agent.subscribe((event, signal) => {
        if (!watched.has(event.type)) return;
        ctx.note(`second listener ${event.type} streaming=${agent.state.isStreaming} aborted=${signal.aborted}`);
      });
      await ctx.settle("prompt()", agent.prompt("Hello"));
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        "agent_start",
        "· slow listener begins agent_start",
        "· slow listener ends agent_start",
        "· second listener agent_start streaming=true aborted=false",
        "agent_end [user, assistant(stop)]",
        "· slow listener begins agent_end",
        "· slow listener ends agent_end",
        "· second listener agent_end streaming=true aborted=false",
        "prompt() resolved",
      ]),
  }),
  defineScenario({
    id: "stream-options-forwarded",
    title: "Agent options and state reach every request as stream options",
    spec: ["L0", "L2"],
    surfaces: ["agent"],
    trace: {
      requestOptions: ["sessionId", "reasoning", "transport", "maxRetryDelayMs", "thinkingBudgets", "toolExecution"],
    },
    script: () => [response("Configured.")],
    async run(ctx) {
      const agent = ctx.createAgent({
        initialState: { thinkingLevel: "low" },
        sessionId: "session-7",
        transport: "sse",
        maxRetryDelayMs: 1500,
        thinkingBudgets: { low: 1024 },
        toolExecution: "sequential",
      });
      await ctx.settle("prompt()", agent.prompt("Hi"));
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        'request 1: [user "Hi"] sessionId="session-7" reasoning="low" transport="sse" maxRetryDelayMs=1500 thinkingBudgets={"low":1024} toolExecution="sequential"',
      ]),
  }),
  defineScenario({
    id: "agent-defaults-forwarded",
    title: "an Agent built with no options sends pi's defaults (transport auto, parallel tools, no reasoning)",
    spec: ["L0", "L8"],
    surfaces: ["agent"],
    trace: { requestOptions: ["transport", "toolExecution", "reasoning", "sessionId"] },
    script: () => [response("Defaults.")],
    async run(ctx) {
      const agent = ctx.createAgent();
      ctx.note(
        `steeringMode=${agent.steeringMode} followUpMode=${agent.followUpMode} thinkingLevel=${agent.state.thinkingLevel}`,
      );
      await ctx.settle("prompt()", agent.prompt("Hi"));
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        "· steeringMode=one-at-a-time followUpMode=one-at-a-time thinkingLevel=off",
        'request 1: [user "Hi"] transport="auto" toolExecution="parallel" reasoning=undefined sessionId=undefined',
      ]),
  }),
  defineScenario({
    id: "continue-from-tool-result-tail",
    title: "continuing a transcript that ends with a tool result requests at once",
    spec: ["L0", "L8"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response("Continued after the tool.")],
    run: (ctx) =>
      ctx.continueFrom({
        tools: [echoTool()],
        messages: [
          user("Echo x"),
          assistantMessage(toolCall("echo", { text: "x" }, { id: "earlier_1" }), { timestamp: 0 }),
          toolResultMessage("earlier_1", "echo", "echo: x", { timestamp: 0 }),
        ],
      }),
    then: (trace) => {
      assertLinesInOrder(trace, [
        "agent_start",
        "turn_start",
        'message_end assistant(stop) [text "Continued after the tool."]',
        "agent_end [assistant(stop)]",
      ]);
      assertLinesInOrder(trace, ['request 1: [user "Echo x", assistant(toolUse), toolResult(earlier_1)] tools=[echo]']);
    },
  }),
  defineScenario({
    id: "agent-loop-continue",
    title: "agentLoopContinue from a user tail requests at once; from an assistant tail it throws before any event",
    spec: ["L0"],
    surfaces: ["agentLoop"],
    script: () => [response("Continued.")],
    async run(ctx) {
      const config = { convertToLlm: keepProviderMessages };
      await ctx.runLoopContinue({ systemPrompt: "", messages: [user("Pending question")] }, config);
      await ctx.runLoopContinue({ systemPrompt: "", messages: [] }, config);
      await ctx.runLoopContinue(
        { systemPrompt: "", messages: [user("Question"), assistantMessage("Answer", { timestamp: 0 })] },
        config,
      );
    },
    then: (trace) => {
      assertLineCount(trace, "agent_start", 1);
      assertLinesInOrder(trace, [
        "agent_start",
        "turn_start",
        'message_end assistant(stop) [text "Continued."]',
        "agent_end [assistant(stop)]",
        "agentLoopContinue result [assistant(stop)]",
        "agentLoopContinue threw: Cannot continue: no messages in context",
        "agentLoopContinue threw: Cannot continue from message role: assistant",
      ]);
    },
  }),
];
