import type { AgentOptions } from "@mariozechner/pi-agent-core";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import type { HostAgent } from "../implementations.js";
import { keepProviderMessages } from "../scenario-runner.js";
import { defineScenario, type Scenario } from "../scenario.js";
import { user } from "../scenario-messages.js";
import { defineTool, echoTool, textResult } from "../scenario-tools.js";
import { assertLinesInOrder, assertLineCount } from "../trace-assertions.js";

type QueueMode = NonNullable<AgentOptions["steeringMode"]>;

function steeringDuringTool(mode: QueueMode): Scenario {
  return defineScenario({
    id: `steering-${mode}`,
    title: `two steers queued during a tool, steeringMode ${mode}`,
    spec: ["L1", "L8"],
    surfaces: ["agent"],
    script: () =>
      mode === "all"
        ? [response(toolCall("work", {})), response("Handled both.")]
        : [response(toolCall("work", {})), response("Handled the first."), response("Handled the second.")],
    async run(ctx) {
      let agent: HostAgent | undefined;
      const work = defineTool({
        name: "work",
        execute: async () => {
          agent?.steer(user("Steer one"));
          agent?.steer(user("Steer two"));
          ctx.note("work queued two steers");
          return textResult("worked");
        },
      });
      agent = ctx.createAgent({ initialState: { tools: [work] }, steeringMode: mode });
      await ctx.settle("prompt()", agent.prompt("Work"));
    },
    then: (trace) =>
      mode === "all"
        ? assertLinesInOrder(trace, [
            "turn_end assistant(toolUse) results=[call_1]",
            "turn_start",
            'message_end user [text "Steer one"]',
            'message_end user [text "Steer two"]',
            'request 2: [user "Work", assistant(toolUse), toolResult(call_1), user "Steer one", user "Steer two"] tools=[work]',
          ])
        : assertLinesInOrder(trace, [
            "turn_end assistant(toolUse) results=[call_1]",
            "turn_start",
            'message_end user [text "Steer one"]',
            "request 2: …",
            "turn_end assistant(stop) results=[]",
            "turn_start",
            'message_end user [text "Steer two"]',
            "request 3: …",
          ]),
  });
}

/** Steering, follow-ups and stop checks between steps (behaviours L1, L6, L8). */
export const QUEUE_SCENARIOS = [
  defineScenario({
    id: "steer-during-tool",
    title: "Agent.steer() from inside a tool: injected after the whole batch, before the next request",
    spec: ["L1", "L8"],
    surfaces: ["agent"],
    script: () => [
      response([toolCall("work", { text: "a" }), toolCall("echo", { text: "b" })]),
      response("Also checked the logs."),
    ],
    async run(ctx) {
      let agent: HostAgent | undefined;
      const work = defineTool({
        name: "work",
        execute: async () => {
          agent?.steer(user("Also check the logs"));
          return textResult("worked");
        },
      });
      agent = ctx.createAgent({ initialState: { tools: [work, echoTool()] } });
      await ctx.settle("prompt()", agent.prompt("Work"));
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        "tool_execution_end call_2 echo…",
        "message_end toolResult call_2 echo…",
        "turn_end assistant(toolUse) results=[call_1, call_2]",
        "turn_start",
        'message_end user [text "Also check the logs"]',
        'request 2: [user "Work", assistant(toolUse), toolResult(call_1), toolResult(call_2), user "Also check the logs"] tools=[work, echo]',
      ]),
  }),
  defineScenario({
    id: "steer-during-streaming",
    title: "Agent.steer() while a text response streams: the run continues with one more step for it",
    spec: ["L1", "L8"],
    surfaces: ["agent"],
    script: () => [response("Streaming a longer answer"), response("Adjusted.")],
    async run(ctx) {
      const agent = ctx.createAgent();
      ctx.trace.onEvent(
        (event) => event.type === "message_update" && event.assistantMessageEvent.type === "text_delta",
        () => agent.steer(user("Make it shorter")),
      );
      await ctx.settle("prompt()", agent.prompt("Explain"));
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        'message_end assistant(stop) [text "Streaming a longer answer"]',
        "turn_end assistant(stop) results=[]",
        "turn_start",
        'message_end user [text "Make it shorter"]',
        'request 2: [user "Explain", assistant(stop), user "Make it shorter"]',
      ]),
  }),
  steeringDuringTool("one-at-a-time"),
  steeringDuringTool("all"),
  defineScenario({
    id: "steering-before-prompt",
    title: "a steer queued before prompt() is injected after the prompt, before the first request",
    spec: ["L1"],
    surfaces: ["agent"],
    script: () => [response("Saw both.")],
    async run(ctx) {
      const agent = ctx.createAgent();
      agent.steer(user("Queued early"));
      await ctx.settle("prompt()", agent.prompt("Hello"));
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        'message_end user [text "Hello"]',
        'message_end user [text "Queued early"]',
        'request 1: [user "Hello", user "Queued early"]',
      ]),
  }),
  defineScenario({
    id: "steer-empty-text",
    title:
      "Agent.steer() with empty and whitespace-only text: the loop sends each as it is, a user message of its own step",
    spec: ["L1", "L8"],
    surfaces: ["agent"],
    script: () => [response("Streaming a longer answer"), response("Nothing new."), response("Still nothing.")],
    async run(ctx) {
      const agent = ctx.createAgent();
      ctx.trace.onEvent(
        (event) => event.type === "message_update" && event.assistantMessageEvent.type === "text_delta",
        () => {
          agent.steer(user(""));
          agent.steer(user("  \n "));
        },
      );
      await ctx.settle("prompt()", agent.prompt("Explain"));
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        "turn_end assistant(stop) results=[]",
        "turn_start",
        'message_end user [text ""]',
        'request 2: [user "Explain", assistant(stop), user ""]',
        'message_end user [text "  \\n "]',
        'request 3: [user "Explain", assistant(stop), user "", assistant(stop), user "  \\n "]',
      ]),
  }),
  defineScenario({
    id: "follow-up-after-natural-end",
    title: "a follow-up runs only once the agent would stop, as a new step",
    spec: ["L1", "L8"],
    surfaces: ["agent"],
    script: () => [response("Hello!"), response("Bonjour !")],
    async run(ctx) {
      const agent = ctx.createAgent();
      agent.followUp(user("And in French?"));
      await ctx.settle("prompt()", agent.prompt("Say hello"));
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        'message_end assistant(stop) [text "Hello!"]',
        "turn_end assistant(stop) results=[]",
        "turn_start",
        'message_end user [text "And in French?"]',
        'request 2: [user "Say hello", assistant(stop), user "And in French?"]',
        'message_end assistant(stop) [text "Bonjour !"]',
        "agent_end [user, assistant(stop), user, assistant(stop)]",
      ]),
  }),
  defineScenario({
    id: "follow-ups-all-mode",
    title: "followUpMode all: two queued follow-ups go in together",
    spec: ["L8"],
    surfaces: ["agent"],
    script: () => [response("One."), response("Two and three.")],
    async run(ctx) {
      const agent = ctx.createAgent({ followUpMode: "all" });
      agent.followUp(user("Second"));
      agent.followUp(user("Third"));
      await ctx.settle("prompt()", agent.prompt("First"));
    },
    then: (trace) => {
      assertLineCount(trace, "request ", 2);
      assertLinesInOrder(trace, ['request 2: [user "First", assistant(stop), user "Second", user "Third"]']);
    },
  }),
  defineScenario({
    id: "should-stop-after-turn",
    title: "agentLoop shouldStopAfterTurn true after a tool step: agent_end without another request or poll",
    spec: ["L6"],
    surfaces: ["agentLoop"],
    script: () => [response(toolCall("echo", { text: "x" })), response("never requested")],
    async run(ctx) {
      await ctx.runLoop(
        [user("Echo")],
        { systemPrompt: "", messages: [], tools: [echoTool()] },
        {
          convertToLlm: keepProviderMessages,
          shouldStopAfterTurn: ({ message, toolResults, newMessages }) => {
            ctx.note(
              `shouldStopAfterTurn ${message.stopReason} results=${toolResults.length} new=${newMessages.length}`,
            );
            return toolResults.length > 0;
          },
          getSteeringMessages: async () => {
            ctx.note("steering polled");
            return [];
          },
          getFollowUpMessages: async () => {
            ctx.note("follow-ups polled");
            return [];
          },
        },
      );
    },
    then: (trace) => {
      assertLineCount(trace, "request ", 1);
      assertLineCount(trace, "· follow-ups polled", 0);
      assertLinesInOrder(trace, [
        "turn_end assistant(toolUse) results=[call_1]",
        "agent_end [user, assistant(toolUse), toolResult(call_1)]",
      ]);
      assertLinesInOrder(trace, ["· steering polled", "· shouldStopAfterTurn toolUse results=1 new=3"]);
    },
  }),
  defineScenario({
    id: "loop-queue-callbacks",
    title: "agentLoop polls steering at start and after each step, follow-ups when it would stop",
    spec: ["L1"],
    surfaces: ["agentLoop"],
    script: () => [response(toolCall("echo", { text: "x" })), response("Steered."), response("Followed up.")],
    async run(ctx) {
      let steeringPolls = 0;
      let followUpPolls = 0;
      await ctx.runLoop(
        [user("Start")],
        { systemPrompt: "", messages: [], tools: [echoTool()] },
        {
          convertToLlm: keepProviderMessages,
          getSteeringMessages: async () => {
            steeringPolls += 1;
            ctx.note(`steering poll ${steeringPolls}`);
            return steeringPolls === 2 ? [user("Steering message")] : [];
          },
          getFollowUpMessages: async () => {
            followUpPolls += 1;
            ctx.note(`follow-up poll ${followUpPolls}`);
            return followUpPolls === 1 ? [user("Follow-up message")] : [];
          },
        },
      );
    },
    then: (trace) => {
      assertLinesInOrder(trace, [
        "turn_end assistant(toolUse) results=[call_1]",
        "turn_start",
        'message_end user [text "Steering message"]',
        "turn_end assistant(stop) results=[]",
        "turn_start",
        'message_end user [text "Follow-up message"]',
        "agent_end…",
      ]);
      assertLinesInOrder(trace, [
        "· steering poll 1",
        "request 1: …",
        "· steering poll 2",
        "request 2: …",
        "· steering poll 3",
        "· follow-up poll 1",
        "request 3: …",
        "· steering poll 4",
        "· follow-up poll 2",
      ]);
    },
  }),
];
