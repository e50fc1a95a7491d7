import { endWithoutDone, errorAfter, reject, response, text, throwSync, toolCall } from "@turnkit/agent-loop/testing";
import { defineScenario } from "../scenario.js";
import { defineTool, echoTool, textResult } from "../scenario-tools.js";
import { assertLinesInOrder, assertLineCount, assertNoLine } from "../trace-assertions.js";

/** Responses that fail and callbacks that throw (behaviours L3, L5, L9, L11). */
export const FAILURE_SCENARIOS = [
  defineScenario({
    id: "error-response",
    title: "a response that ends with stopReason error ends the run at once and sets errorMessage",
    spec: ["L3"],
    surfaces: ["agent", "agentLoop"],
    script: () => [
      errorAfter(3, "Upstream overloaded", { response: "Partial answer that breaks" }),
      response("never requested"),
    ],
    run: (ctx) => ctx.prompt("Hi"),
    then: (trace) => {
      assertLineCount(trace, "request ", 1);
      assertLinesInOrder(trace, [
        'message_update text_delta "Partial"',
        'message_end assistant(error) [text "Partial"] error="Upstream overloaded"',
        "turn_end assistant(error) results=[]",
        "agent_end [user, assistant(error)]",
      ]);
    },
  }),
  defineScenario({
    id: "error-response-with-tool-call",
    title: "an error response with a partial tool call: the call is not executed and gets no result",
    spec: ["L3", "L5"],
    surfaces: ["agent"],
    script: () => [
      errorAfter(3, "Connection reset", {
        response: response([text("Running it"), toolCall("echo", { text: "never" })]),
      }),
    ],
    async run(ctx) {
      const agent = ctx.createAgent({ initialState: { tools: [echoTool()] } });
      await ctx.settle("prompt()", agent.prompt("Echo"));
    },
    then: (trace) => {
      assertNoLine(trace, "tool_execution_start");
      assertLinesInOrder(trace, [
        "turn_end assistant(error) results=[]",
        'agent state: streaming=false pending=0 error="Connection reset"…',
      ]);
    },
  }),
  defineScenario({
    id: "continue-after-error",
    title: "continue() on an error tail throws; after dropping the error message it retries",
    spec: ["L8"],
    surfaces: ["agent"],
    script: () => [errorAfter(1, "Rate limited"), response("Second time lucky.")],
    async run(ctx) {
      const agent = ctx.createAgent();
      await ctx.settle("prompt()", agent.prompt("Hi"));
      await ctx.settle("continue() on the error tail", agent.continue());
      agent.state.messages = agent.state.messages.slice(0, -1);
      ctx.note("host dropped the error message");
      await ctx.settle("continue() on the user tail", agent.continue());
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        "prompt() resolved",
        "continue() on the error tail rejected: Cannot continue from message role: assistant",
        "· host dropped the error message",
        "agent_start",
        "turn_start",
        'request 2: [user "Hi"]',
        'message_end assistant(stop) [text "Second time lucky."]',
        "agent_end [assistant(stop)]",
        "continue() on the user tail resolved",
        "agent state: streaming=false pending=0 error=- messages=[user, assistant(stop)]",
      ]),
  }),
  defineScenario({
    id: "stream-fn-throws",
    title: "a stream function that throws synchronously",
    spec: ["L9"],
    surfaces: ["agent"],
    script: () => [throwSync(new Error("socket hang up"))],
    async run(ctx) {
      const agent = ctx.createAgent();
      await ctx.settle("prompt()", agent.prompt("Hi"));
    },
  }),
  defineScenario({
    id: "stream-fn-rejects",
    title: "a stream function that returns a rejected promise",
    spec: ["L9"],
    surfaces: ["agent"],
    script: () => [reject(new Error("getaddrinfo ENOTFOUND"))],
    async run(ctx) {
      const agent = ctx.createAgent();
      await ctx.settle("prompt()", agent.prompt("Hi"));
    },
  }),
  defineScenario({
    id: "transform-context-throws",
    title: "a transformContext that throws before the second request",
    spec: ["L9"],
    surfaces: ["agent"],
    script: () => [response(toolCall("echo", { text: "x" })), response("never requested")],
    async run(ctx) {
      let calls = 0;
      const agent = ctx.createAgent({
        initialState: { tools: [echoTool()] },
        transformContext: async (messages) => {
          calls += 1;
          if (calls === 2) throw new Error("context store offline");
          return messages;
        },
      });
      await ctx.settle("prompt()", agent.prompt("Echo"));
    },
  }),
  defineScenario({
    id: "transform-context-no-array",
    title: "a transformContext that resolves to no array fails the run, naming it",
    spec: ["L9"],
    surfaces: ["agent"],
    script: () => [response("never requested")],
    async run(ctx) {
      const agent = ctx.createAgent({ transformContext: async () => undefined as never });
      await ctx.settle("prompt()", agent.prompt("Echo"));
    },
  }),
  defineScenario({
    id: "listener-throws",
    title: "a listener that throws on the assistant's message_end",
    spec: ["L9"],
    surfaces: ["agent"],
    script: () => [response("Hello")],
    async run(ctx) {
      const agent = ctx.createAgent();
      let thrown = false;
      agent.subscribe((event) => {
        if (!thrown && event.type === "message_end" && event.message.role === "assistant") {
          thrown = true;
          throw new Error("listener bug");
        }
      });
      await ctx.settle("prompt()", agent.prompt("Hi"));
    },
  }),
  defineScenario({
    id: "listener-throws-on-tool-update",
    title: "a listener that throws on a tool_execution_update",
    spec: ["L9"],
    surfaces: ["agent"],
    script: () => [response(toolCall("download", {})), response("never requested")],
    async run(ctx) {
      const download = defineTool({
        name: "download",
        execute: async (_id, _params, _signal, onUpdate) => {
          onUpdate?.(textResult("50%"));
          await Promise.resolve();
          return textResult("saved");
        },
      });
      const agent = ctx.createAgent({ initialState: { tools: [download] } });
      let thrown = false;
      agent.subscribe((event) => {
        if (!thrown && event.type === "tool_execution_update") {
          thrown = true;
          throw new Error("update listener bug");
        }
      });
      await ctx.settle("prompt()", agent.prompt("Download"));
    },
  }),
  defineScenario({
    id: "length-truncated-tool-calls",
    title: "a response cut off at the token limit (stopReason length) with a tool call",
    spec: ["L11"],
    surfaces: ["agent"],
    script: () => [
      response([text("Writing the file"), toolCall("write", { text: "half a fi" })], { stopReason: "length" }),
      response("Wrote it."),
    ],
    async run(ctx) {
      const write = defineTool({
        name: "write",
        execute: async (_id, params: { text: string }) => {
          ctx.note(`write executes with ${JSON.stringify(params.text)}`);
          return textResult("written");
        },
      });
      const agent = ctx.createAgent({ initialState: { tools: [write] } });
      await ctx.settle("prompt()", agent.prompt("Write a file"));
    },
  }),
];
