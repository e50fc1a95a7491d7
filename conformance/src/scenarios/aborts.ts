import type { AgentToolUpdateCallback } from "@mariozechner/pi-agent-core";
import { hang, response, toolCall } from "@turnkit/agent-loop/testing";
import { whenAborted } from "../gate.js";
import type { HostAgent } from "../implementations.js";
import { keepProviderMessages } from "../scenario-runner.js";
import { defineScenario, type ScenarioContext } from "../scenario.js";
import { user } from "../scenario-messages.js";
import { defineTool, echoTool, textResult } from "../scenario-tools.js";
import { assertLinesInOrder } from "../trace-assertions.js";

/** A tool that runs until the run is aborted, then throws, as a well-behaved long tool does. */
function untilAbortedTool(name: string, onStart: () => void) {
  return defineTool({
    name,
    execute: async (_id, _params, signal) => {
      onStart();
      await whenAborted(signal);
      throw new Error(`${name} cancelled`);
    },
  });
}

/** Prompts "Count" and calls `Agent.abort()` at the first text delta the host sees. */
async function promptAndAbortAtFirstTextDelta(ctx: ScenarioContext): Promise<void> {
  const agent = ctx.createAgent();
  ctx.trace.onEvent(
    (event) => event.type === "message_update" && event.assistantMessageEvent.type === "text_delta",
    () => {
      ctx.note("host aborts");
      agent.abort();
    },
  );
  await ctx.settle("prompt()", agent.prompt("Count"));
}

/** abort() while streaming, while a tool runs, and late tool updates (behaviours L3, L10). */
export const ABORT_SCENARIOS = [
  defineScenario({
    id: "abort-with-queued-steer",
    title: "a tool steers, then aborts: the steer is kept for the next run",
    spec: ["L10"],
    surfaces: ["agent"],
    script: () => [response(toolCall("work", {})), response("Steered.")],
    async run(ctx) {
      let agent: HostAgent | undefined;
      const work = defineTool({
        name: "work",
        execute: async () => {
          agent!.steer(user("S"));
          agent!.abort();
          return textResult("done");
        },
      });
      agent = ctx.createAgent({ initialState: { tools: [work] } });
      await ctx.settle("prompt()", agent.prompt("Go"));
      ctx.note(`queued ${agent.hasQueuedMessages()}`);
      await ctx.settle("continue()", agent.continue());
    },
  }),
  defineScenario({
    id: "abort-during-streaming",
    title: "Agent.abort() while a response streams: the response ends aborted with what had streamed",
    spec: ["L3", "L10"],
    surfaces: ["agent"],
    // The stream stops after its third event and waits, so the abort always lands at the same point.
    script: () => [hang({ afterEvents: 3, response: response("Counting one two three") }), response("never requested")],
    run: promptAndAbortAtFirstTextDelta,
    then: (trace) =>
      assertLinesInOrder(trace, [
        'message_update text_delta "Counting"',
        "· host aborts",
        'message_end assistant(aborted) [text "Counting"] error="Request was aborted"',
        "turn_end assistant(aborted) results=[]",
        "agent_end [user, assistant(aborted)]",
        'agent state: streaming=false pending=0 error="Request was aborted"…',
      ]),
  }),
  defineScenario({
    id: "abort-during-streaming-next-delta-queued",
    title:
      "Agent.abort() at the first text delta: the delta that had arrived already is still read, then the response ends aborted",
    spec: ["L3", "L10"],
    surfaces: ["agent"],
    // Two text deltas arrive before the stream waits: the abort lands on the first while the second is queued.
    script: () => [hang({ afterEvents: 4, response: response("Counting one two three") }), response("never requested")],
    run: promptAndAbortAtFirstTextDelta,
    then: (trace) =>
      assertLinesInOrder(trace, [
        'message_update text_delta "Counting"',
        "· host aborts",
        'message_update text_delta " one"',
        'message_end assistant(aborted) [text "Counting one"] error="Request was aborted"',
        "agent_end [user, assistant(aborted)]",
      ]),
  }),
  defineScenario({
    id: "abort-signal-during-streaming",
    title: "agentLoop: the caller's AbortSignal fires while a response streams",
    spec: ["L3", "L10"],
    surfaces: ["agentLoop"],
    script: () => [hang({ afterEvents: 3, response: response("Counting one two three") })],
    async run(ctx) {
      const controller = ctx.abortController();
      ctx.trace.onEvent(
        (event) => event.type === "message_update" && event.assistantMessageEvent.type === "text_delta",
        () => controller.abort(),
      );
      await ctx.runLoop(
        [user("Count")],
        { systemPrompt: "", messages: [] },
        { convertToLlm: keepProviderMessages },
        controller.signal,
      );
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        'message_end assistant(aborted) [text "Counting"] error="Request was aborted"',
        "agent_end [user, assistant(aborted)]",
      ]),
  }),
  defineScenario({
    id: "abort-during-tool",
    title: "Agent.abort() while a tool runs; the tool honours the signal and throws",
    spec: ["L10"],
    surfaces: ["agent"],
    script: () => [response(toolCall("long", {})), response("never streamed")],
    async run(ctx) {
      let agent: HostAgent | undefined;
      const long = untilAbortedTool("long", () => {
        ctx.note("host aborts while long runs");
        agent?.abort();
      });
      agent = ctx.createAgent({ initialState: { tools: [long] } });
      await ctx.settle("prompt()", agent.prompt("Run long"));
    },
  }),
  defineScenario({
    id: "abort-during-sequential-batch",
    title: "Agent.abort() during the first call of a sequential batch",
    spec: ["L10"],
    surfaces: ["agent"],
    script: () => [response([toolCall("long", {}), toolCall("echo", { text: "after" })]), response("never streamed")],
    async run(ctx) {
      let agent: HostAgent | undefined;
      const long = untilAbortedTool("long", () => {
        ctx.note("host aborts while long runs");
        agent?.abort();
      });
      agent = ctx.createAgent({ initialState: { tools: [long, echoTool()] }, toolExecution: "sequential" });
      await ctx.settle("prompt()", agent.prompt("Run both"));
    },
  }),
  defineScenario({
    id: "abort-in-before-tool-call",
    title: "Agent.abort() from beforeToolCall of the first of two parallel calls",
    spec: ["L10"],
    surfaces: ["agent"],
    script: () => [
      response([toolCall("echo", { text: "a" }), toolCall("echo", { text: "b" })]),
      response("never streamed"),
    ],
    async run(ctx) {
      let agent: HostAgent | undefined;
      agent = ctx.createAgent({
        initialState: { tools: [echoTool()] },
        beforeToolCall: async ({ toolCall: call }) => {
          if (call.id === "call_1") {
            ctx.note("beforeToolCall aborts");
            agent?.abort();
          }
          return undefined;
        },
      });
      await ctx.settle("prompt()", agent.prompt("Echo twice"));
    },
  }),
  defineScenario({
    id: "late-on-update",
    title: "a tool calls its onUpdate after it has returned (from a sibling tool, while the batch still runs)",
    spec: ["L0"],
    surfaces: ["agent"],
    script: () => [response([toolCall("report", {}), toolCall("sibling", {})]), response("Done.")],
    async run(ctx) {
      let storedUpdate: AgentToolUpdateCallback | undefined;
      const report = defineTool({
        name: "report",
        execute: async (_id, _params, _signal, onUpdate) => {
          storedUpdate = onUpdate;
          return textResult("report done");
        },
      });
      const sibling = defineTool({
        name: "sibling",
        execute: async () => {
          await ctx.trace.whenEvent((event) => event.type === "tool_execution_end" && event.toolName === "report");
          ctx.note("sibling calls report's onUpdate after report ended");
          storedUpdate?.(textResult("late progress"));
          return textResult("sibling done");
        },
      });
      const agent = ctx.createAgent({ initialState: { tools: [report, sibling] } });
      await ctx.settle("prompt()", agent.prompt("Report"));
    },
  }),
];
