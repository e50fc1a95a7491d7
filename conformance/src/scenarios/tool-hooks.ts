import { response, toolCall } from "@turnkit/agent-loop/testing";
import { defineScenario } from "../scenario.js";
import { defineTool, echoTool, textResult, throwingTool } from "../scenario-tools.js";
import { assertLinesInOrder, assertNoLine } from "../trace-assertions.js";

/** beforeToolCall / afterToolCall (behaviours L4, L5). */
export const TOOL_HOOK_SCENARIOS = [
  defineScenario({
    id: "before-tool-call-block",
    title: "beforeToolCall blocks with a reason, blocks without one, and lets one call through",
    spec: ["L4", "L5"],
    surfaces: ["agent", "agentLoop"],
    script: () => [
      response([
        toolCall("rm", { text: "/" }),
        toolCall("curl", { text: "evil.example" }),
        toolCall("echo", { text: "safe" }),
      ]),
      response("Two were blocked."),
    ],
    async run(ctx) {
      const executed = (name: string) =>
        defineTool({
          name,
          execute: async () => {
            ctx.note(`${name} executes`);
            return textResult(`${name} ran`);
          },
        });
      await ctx.prompt("Clean up", {
        tools: [executed("rm"), executed("curl"), echoTool()],
        beforeToolCall: async ({ toolCall: call }) => {
          ctx.note(`beforeToolCall ${call.id} ${call.name}`);
          if (call.name === "rm") return { block: true, reason: "rm is not allowed here" };
          if (call.name === "curl") return { block: true };
          return undefined;
        },
      });
    },
    then: (trace) => {
      assertNoLine(trace, "· rm executes");
      assertNoLine(trace, "· curl executes");
      assertLinesInOrder(trace, [
        'tool_execution_end call_1 rm error [text "rm is not allowed here"]',
        'tool_execution_end call_2 curl error [text "Tool execution was blocked"]',
        'tool_execution_end call_3 echo ok [text "echo: safe"]',
      ]);
    },
  }),
  defineScenario({
    id: "before-tool-call-throws",
    title: "a beforeToolCall that throws gives an error result for that call; the run goes on",
    spec: ["L5"],
    surfaces: ["agent"],
    script: () => [response(toolCall("echo", { text: "x" })), response("The hook failed.")],
    async run(ctx) {
      const agent = ctx.createAgent({
        initialState: { tools: [echoTool()] },
        beforeToolCall: async () => {
          throw new Error("policy service unavailable");
        },
      });
      await ctx.settle("prompt()", agent.prompt("Echo"));
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        'tool_execution_end call_1 echo error [text "policy service unavailable"]',
        "request 2: …",
      ]),
  }),
  defineScenario({
    id: "after-tool-call-patch",
    title: "afterToolCall replaces content and flips isError, both ways",
    spec: ["L5"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response([toolCall("fetch", { text: "secret" }), toolCall("flaky", {})]), response("Patched.")],
    run: (ctx) =>
      ctx.prompt("Fetch", {
        tools: [echoTool("fetch"), throwingTool("flaky", "timeout")],
        afterToolCall: async ({ toolCall: call, result, isError }) => {
          ctx.note(`afterToolCall ${call.id} isError=${isError} text=${JSON.stringify(result.content[0])}`);
          if (call.name === "fetch") return { content: [{ type: "text", text: "[redacted]" }], isError: true };
          return { content: [{ type: "text", text: "recovered from cache" }], isError: false };
        },
      }),
    then: (trace) =>
      assertLinesInOrder(trace, [
        'message_end toolResult call_1 fetch error [text "[redacted]"]',
        'message_end toolResult call_2 flaky ok [text "recovered from cache"]',
      ]),
  }),
  defineScenario({
    id: "after-tool-call-null-details",
    title: "afterToolCall returning details: null keeps the executed details (merged with ??)",
    spec: ["L5"],
    surfaces: ["agent", "agentLoop"],
    trace: { details: true },
    script: () => [response(toolCall("echo", { text: "x" })), response("Done.")],
    run: (ctx) => ctx.prompt("Echo", { tools: [echoTool()], afterToolCall: async () => ({ details: null }) }),
    then: (trace) =>
      assertLinesInOrder(trace, ['message_end toolResult call_1 echo ok [text "echo: x"] details={"text":"echo: x"}']),
  }),
  defineScenario({
    id: "hook-context-parallel",
    title: "in a parallel batch, both hooks of every call see the context without this batch's results",
    spec: ["L4"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response([toolCall("echo", { text: "a" }), toolCall("echo", { text: "b" })]), response("Done.")],
    run: (ctx) =>
      ctx.prompt("Echo twice", {
        tools: [echoTool()],
        beforeToolCall: async ({ toolCall: call, context, assistantMessage }) => {
          ctx.note(
            `beforeToolCall ${call.id} context=[${context.messages.map((message) => message.role).join(", ")}] assistant=${assistantMessage.stopReason}`,
          );
          return undefined;
        },
        afterToolCall: async ({ toolCall: call, context }) => {
          ctx.note(`afterToolCall ${call.id} context=[${context.messages.map((message) => message.role).join(", ")}]`);
          return undefined;
        },
      }),
    then: (trace) =>
      assertLinesInOrder(trace, [
        "· beforeToolCall call_1 context=[user, assistant] assistant=toolUse",
        "· beforeToolCall call_2 context=[user, assistant] assistant=toolUse",
        "· afterToolCall call_1 context=[user, assistant]",
        "· afterToolCall call_2 context=[user, assistant]",
      ]),
  }),
  defineScenario({
    id: "after-tool-call-throws",
    title: "an afterToolCall that throws replaces the result with an error result",
    spec: ["L5"],
    surfaces: ["agent"],
    script: () => [response(toolCall("echo", { text: "x" })), response("The hook failed.")],
    async run(ctx) {
      const agent = ctx.createAgent({
        initialState: { tools: [echoTool()] },
        afterToolCall: async () => {
          throw new Error("audit log unavailable");
        },
      });
      await ctx.settle("prompt()", agent.prompt("Echo"));
    },
    then: (trace) => assertLinesInOrder(trace, ['tool_execution_end call_1 echo error [text "audit log unavailable"]']),
  }),
];
