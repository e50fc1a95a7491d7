import { endWithoutDone, response, toolCall } from "@turnkit/agent-loop/testing";
import { defineScenario } from "../scenario.js";
import { defineTool, echoTool } from "../scenario-tools.js";

/**
 * Scenarios the suite once reported as suspected bugs, kept after the loop
 * was fixed (or the difference documented) so they cannot come back.
 */
export const REGRESSION_SCENARIOS = [
  defineScenario({
    id: "stream-ends-without-done",
    title: "a stream that ends without done/error, whose result() resolves to the final message",
    spec: ["L2"],
    surfaces: ["agent", "agentLoop"],
    script: () => [endWithoutDone("Complete answer", { resolveResult: true })],
    run: (ctx) => ctx.prompt("Hi"),
  }),
  defineScenario({
    id: "thrown-non-error-text",
    title: "execute throws a string, a plain object and an Error with an empty message",
    spec: ["L5"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response([toolCall("quota", {}), toolCall("coded", {}), toolCall("blank", {})]), response("Done.")],
    run: (ctx) => {
      const throwing = (name: string, value: unknown) =>
        defineTool({
          name,
          execute: async () => {
            throw value;
          },
        });
      return ctx.prompt("Go", {
        tools: [
          throwing("quota", "quota exceeded"),
          throwing("coded", { code: "E42" }),
          throwing("blank", new Error("")),
        ],
      });
    },
  }),
  defineScenario({
    id: "tool-result-missing",
    title: "execute resolves undefined instead of a result",
    spec: ["L5"],
    surfaces: ["agent"],
    script: () => [response(toolCall("nothing", {})), response("Done.")],
    async run(ctx) {
      const nothing = defineTool({ name: "nothing", execute: async () => undefined as never });
      const agent = ctx.createAgent({ initialState: { tools: [nothing] } });
      await ctx.settle("prompt()", agent.prompt("Go"));
    },
  }),
  defineScenario({
    id: "hook-context-sequential",
    title: "in a sequential batch, what the hooks of the second call see in context.messages",
    spec: ["L4"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response([toolCall("echo", { text: "a" }), toolCall("echo", { text: "b" })]), response("Done.")],
    run: (ctx) =>
      ctx.prompt("Echo twice", {
        tools: [echoTool()],
        toolExecution: "sequential",
        beforeToolCall: async ({ toolCall: call, context }) => {
          ctx.note(`beforeToolCall ${call.id} context=[${context.messages.map((message) => message.role).join(", ")}]`);
          return undefined;
        },
        afterToolCall: async ({ toolCall: call, context }) => {
          ctx.note(`afterToolCall ${call.id} context=[${context.messages.map((message) => message.role).join(", ")}]`);
          return undefined;
        },
      }),
  }),
  defineScenario({
    id: "abort-in-agent-end-listener",
    title: "a listener calls abort() on agent_end: the run had ended, so nothing says it was aborted",
    spec: ["L10"],
    surfaces: ["agent"],
    script: () => [response([toolCall("echo", { text: "a" })]), response("Done.")],
    async run(ctx) {
      const agent = ctx.createAgent({ initialState: { tools: [echoTool()] } });
      agent.subscribe((event) => {
        if (event.type === "agent_end") agent.abort();
      });
      await ctx.settle("prompt()", agent.prompt("Echo"));
    },
  }),
  defineScenario({
    id: "listener-throws-on-agent-end",
    title: "a listener that throws on agent_end",
    spec: ["L9"],
    surfaces: ["agent"],
    script: () => [response("Hello")],
    async run(ctx) {
      const agent = ctx.createAgent();
      let thrown = false;
      agent.subscribe((event) => {
        if (!thrown && event.type === "agent_end") {
          thrown = true;
          throw new Error("end listener bug");
        }
      });
      await ctx.settle("prompt()", agent.prompt("Hi"));
    },
  }),
];
