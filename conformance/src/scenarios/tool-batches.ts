// Why this file is long: it is one list, the scenarios of tool batches (sequential, parallel, blocked, failing), each a script with its expected trace, read as a whole.
import { Type } from "@mariozechner/pi-ai";
import { Type as SinclairType } from "@sinclair/typebox";
import { response, text, toolCall } from "@turnkit/agent-loop/testing";
import { defineScenario } from "../scenario.js";
import { pngImage } from "../scenario-messages.js";
import { defineTool, echoTool, gatedTool, textResult, throwingTool } from "../scenario-tools.js";
import { assertLinesInOrder, assertLineCount, assertNoLine } from "../trace-assertions.js";

/** Executing the tool calls of one response (behaviours L4, L5, L6d). */
export const TOOL_BATCH_SCENARIOS = [
  defineScenario({
    id: "tool-edits-its-arguments",
    title:
      "a tool that edits the arguments it was given: the call in the transcript, and as the model is sent it back, stays as the model wrote it",
    spec: ["L1"],
    surfaces: ["agent"],
    script: () => [response([toolCall("edit", { text: "as sent" })]), response("Done.")],
    async run(ctx) {
      const edit = defineTool({
        name: "edit",
        // A @sinclair/typebox schema: the path on which valid arguments were handed over as the transcript's own.
        parameters: SinclairType.Object({ text: SinclairType.String() }),
        execute: async (_id, params: { text?: string }) => {
          params.text = "edited by the tool";
          return textResult("edited");
        },
      });
      const agent = ctx.createAgent({ initialState: { tools: [edit] } });
      await ctx.settle("prompt()", agent.prompt("Edit"));
      const call = agent.state.messages[1]?.role === "assistant" ? agent.state.messages[1].content[0] : undefined;
      ctx.note(`the call in the transcript: ${JSON.stringify(call?.type === "toolCall" ? call.arguments : call)}`);
    },
    then: (trace) => {
      assertLinesInOrder(trace, ['· the call in the transcript: {"text":"as sent"}']);
    },
  }),
  defineScenario({
    id: "one-tool",
    title: "one tool call: start, end, a result message, turn_end with its id, then the next request",
    spec: ["L1", "L4"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response([text("Let me echo."), toolCall("echo", { text: "hi" })]), response("It said hi.")],
    run: (ctx) => ctx.prompt("Echo hi", { tools: [echoTool()] }),
    then: (trace) => {
      assertLinesInOrder(trace, [
        'message_end assistant(toolUse) [text "Let me echo.", call_1 echo({"text":"hi"})]',
        'tool_execution_start call_1 echo {"text":"hi"}',
        'tool_execution_end call_1 echo ok [text "echo: hi"]',
        'message_end toolResult call_1 echo ok [text "echo: hi"]',
        "turn_end assistant(toolUse) results=[call_1]",
        "turn_start",
        'message_end assistant(stop) [text "It said hi."]',
        "agent_end [user, assistant(toolUse), toolResult(call_1), assistant(stop)]",
      ]);
      assertLinesInOrder(trace, ['request 2: [user "Echo hi", assistant(toolUse), toolResult(call_1)] tools=[echo]']);
    },
  }),
  defineScenario({
    id: "parallel-completion-order",
    title: "parallel tools: both run at once, end events in completion order, results in call order",
    spec: ["L4"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response([toolCall("slow", {}), toolCall("fast", {})]), response("Both finished.")],
    async run(ctx) {
      const slow = gatedTool("slow");
      const fast = gatedTool("fast");
      // fast may finish only once both are running (proves overlap); slow only after fast has ended.
      void Promise.all([slow.started, fast.started]).then(() => fast.release("fast done"));
      ctx.trace.onEvent(
        (event) => event.type === "tool_execution_end" && event.toolName === "fast",
        () => slow.release("slow done"),
      );
      await ctx.prompt("Run both", { tools: [slow.tool, fast.tool] });
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        "tool_execution_start call_1 slow {}",
        "tool_execution_start call_2 fast {}",
        'tool_execution_end call_2 fast ok [text "fast done"]',
        'tool_execution_end call_1 slow ok [text "slow done"]',
        'message_end toolResult call_1 slow ok [text "slow done"]',
        'message_end toolResult call_2 fast ok [text "fast done"]',
        "turn_end assistant(toolUse) results=[call_1, call_2]",
      ]),
  }),
  defineScenario({
    id: "mixed-preparation-failures",
    title: "parallel batch with an unknown tool and invalid arguments: failed preparations end at once, in call order",
    spec: ["L4", "L5"],
    surfaces: ["agent", "agentLoop"],
    script: () => [
      response([
        toolCall("echo", { text: "a" }),
        toolCall("missing", {}),
        toolCall("count", { n: "many" }),
        toolCall("echo", { text: "b" }),
      ]),
      response("Done."),
    ],
    run: (ctx) =>
      ctx.prompt("Go", {
        tools: [
          echoTool(),
          defineTool({
            name: "count",
            parameters: Type.Object({ n: Type.Number() }),
            execute: async () => textResult("counted"),
          }),
        ],
      }),
    then: (trace) =>
      assertLinesInOrder(trace, [
        "tool_execution_start call_1 echo…",
        "tool_execution_start call_2 missing {}",
        'tool_execution_end call_2 missing error [text "Tool missing not found"]',
        "tool_execution_start call_3 count…",
        "tool_execution_end call_3 count error…",
        "tool_execution_start call_4 echo…",
        "tool_execution_end call_1 echo ok…",
        "tool_execution_end call_4 echo ok…",
        "turn_end assistant(toolUse) results=[call_1, call_2, call_3, call_4]",
      ]),
  }),
  defineScenario({
    id: "sequential-tool-execution",
    title: "toolExecution sequential: each call is prepared, executed and answered before the next",
    spec: ["L4"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response([toolCall("first", {}), toolCall("second", {})]), response("Done.")],
    async run(ctx) {
      const tool = (name: string) =>
        defineTool({
          name,
          execute: async () => {
            ctx.note(`${name} executes`);
            return textResult(`${name} done`);
          },
        });
      await ctx.prompt("Go", { tools: [tool("first"), tool("second")], toolExecution: "sequential" });
    },
    then: (trace, surface) => {
      if (surface === "agent") {
        assertLinesInOrder(trace, [
          "tool_execution_start call_1 first {}",
          "· first executes",
          "tool_execution_end call_1 first…",
          "tool_execution_start call_2 second {}",
          "· second executes",
          "tool_execution_end call_2 second…",
        ]);
      }
      assertLinesInOrder(trace, ["message_end toolResult call_1 first…", "message_end toolResult call_2 second…"]);
    },
  }),
  defineScenario({
    id: "sequential-execution-mode-tool",
    title: "one tool with executionMode sequential makes its whole batch sequential",
    spec: ["L4"],
    surfaces: ["agent"],
    script: () => [response([toolCall("read", { text: "a" }), toolCall("write", { text: "b" })]), response("Done.")],
    async run(ctx) {
      const read = defineTool({
        name: "read",
        execute: async () => {
          ctx.note("read executes");
          return textResult("read done");
        },
      });
      const write = defineTool({
        name: "write",
        executionMode: "sequential",
        execute: async () => {
          ctx.note("write executes");
          return textResult("write done");
        },
      });
      const agent = ctx.createAgent({ initialState: { tools: [read, write] } });
      await ctx.settle("prompt()", agent.prompt("Go"));
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        "tool_execution_start call_1 read…",
        "· read executes",
        "tool_execution_end call_1 read…",
        "tool_execution_start call_2 write…",
        "· write executes",
      ]),
  }),
  defineScenario({
    id: "unknown-tool",
    title: "a call to a tool that does not exist gets an error result and the run goes on",
    spec: ["L5"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response(toolCall("teleport", { to: "mars" })), response("I cannot do that.")],
    run: (ctx) => ctx.prompt("Go to Mars", { tools: [echoTool()] }),
    then: (trace) =>
      assertLinesInOrder(trace, [
        'message_end toolResult call_1 teleport error [text "Tool teleport not found"]',
        "agent_end…",
      ]),
  }),
  defineScenario({
    id: "error-result-details",
    title: "results the loop writes itself (unknown tool) carry details {} like pi's; tool details pass through",
    spec: ["L5"],
    surfaces: ["agent", "agentLoop"],
    trace: { details: true },
    script: () => [response([toolCall("echo", { text: "x" }), toolCall("missing", {})]), response("Done.")],
    run: (ctx) => ctx.prompt("Go", { tools: [echoTool()] }),
    then: (trace) =>
      assertLinesInOrder(trace, [
        'message_end toolResult call_1 echo ok [text "echo: x"] details={"text":"echo: x"}',
        'message_end toolResult call_2 missing error [text "Tool missing not found"] details={}',
      ]),
  }),
  defineScenario({
    id: "invalid-arguments",
    title:
      "arguments that fail the tool's pi-ai Type schema give an error result with the validator's text; execute is not called",
    spec: ["L4", "L5"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response(toolCall("count", { n: "many", unit: 3 })), response("Sorry.")],
    async run(ctx) {
      const count = defineTool({
        name: "count",
        parameters: Type.Object({ n: Type.Number(), unit: Type.String() }),
        execute: async () => {
          ctx.note("count executes");
          return textResult("counted");
        },
      });
      await ctx.prompt("Count", { tools: [count] });
    },
    then: (trace) => {
      assertNoLine(trace, "· count executes");
      assertLinesInOrder(trace, [
        'tool_execution_end call_1 count error [text "Validation failed for tool \\"count\\":…',
      ]);
    },
  }),
  defineScenario({
    id: "argument-coercion",
    title: 'a pi-ai Type number schema coerces "42" to 42 before the hook and execute see it',
    spec: ["L4"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response(toolCall("double", { n: "42" })), response("84.")],
    async run(ctx) {
      const double = defineTool({
        name: "double",
        parameters: Type.Object({ n: Type.Number() }),
        execute: async (_id, params: { n: number }) => textResult(`${typeof params.n} ${params.n * 2}`),
      });
      await ctx.prompt("Double 42", {
        tools: [double],
        beforeToolCall: async ({ args }) => {
          ctx.note(`beforeToolCall args=${JSON.stringify(args)}`);
          return undefined;
        },
      });
    },
    then: (trace) => {
      assertLinesInOrder(trace, [
        'tool_execution_start call_1 double {"n":"42"}',
        'tool_execution_end call_1 double ok [text "number 84"]',
      ]);
      assertLinesInOrder(trace, ['· beforeToolCall args={"n":42}']);
    },
  }),
  defineScenario({
    id: "argument-coercion-sinclair",
    title: 'a @sinclair/typebox number schema coerces "42" to 42 too',
    spec: ["L4"],
    surfaces: ["agent"],
    script: () => [response(toolCall("double", { n: "42" })), response("84.")],
    async run(ctx) {
      const double = defineTool({
        name: "double",
        parameters: SinclairType.Object({ n: SinclairType.Number() }) as never,
        execute: async (_id, params: { n: number }) => textResult(`${typeof params.n} ${params.n * 2}`),
      });
      const agent = ctx.createAgent({ initialState: { tools: [double] } });
      await ctx.settle("prompt()", agent.prompt("Double 42"));
    },
    then: (trace) => assertLinesInOrder(trace, ['tool_execution_end call_1 double ok [text "number 84"]']),
  }),
  defineScenario({
    id: "argument-nullable-union",
    title: "a null that a plain JSON Schema's nullable anyOf allows reaches the tool as null",
    spec: ["L4"],
    surfaces: ["agent"],
    script: () => [response(toolCall("search", { limit: null })), response("Searched.")],
    async run(ctx) {
      const search = defineTool({
        name: "search",
        parameters: {
          type: "object",
          properties: { limit: { anyOf: [{ type: "integer" }, { type: "null" }], default: null } },
        } as never,
        execute: async (_id, params: { limit: unknown }) => textResult(`limit ${JSON.stringify(params.limit)}`),
      });
      const agent = ctx.createAgent({ initialState: { tools: [search] } });
      await ctx.settle("prompt()", agent.prompt("Search"));
    },
    then: (trace) => assertLinesInOrder(trace, ['tool_execution_end call_1 search ok [text "limit null"]']),
  }),
  defineScenario({
    id: "thrown-execute",
    title: "execute that throws gives an error result with the thrown message",
    spec: ["L5"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response(toolCall("save", { text: "x" })), response("Saving failed.")],
    run: (ctx) => ctx.prompt("Save", { tools: [throwingTool("save", "disk full")] }),
    then: (trace) =>
      assertLinesInOrder(trace, [
        'tool_execution_end call_1 save error [text "disk full"]',
        'message_end toolResult call_1 save error [text "disk full"]',
        "turn_end assistant(toolUse) results=[call_1]",
        "turn_start",
      ]),
  }),
  defineScenario({
    id: "prepare-arguments",
    title: "prepareArguments reshapes raw arguments before validation; events still show the raw arguments",
    spec: ["L0", "L4"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response(toolCall("search", { q: "cats" })), response("Found cats.")],
    async run(ctx) {
      const search = defineTool({
        name: "search",
        parameters: Type.Object({ query: Type.String() }),
        prepareArguments: (args) => {
          const raw = args as { q?: string; query?: string };
          return { query: raw.query ?? raw.q ?? "" };
        },
        execute: async (_id, params: { query: string }) => textResult(`results for ${params.query}`),
      });
      await ctx.prompt("Search cats", { tools: [search] });
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        'tool_execution_start call_1 search {"q":"cats"}',
        'tool_execution_end call_1 search ok [text "results for cats"]',
      ]),
  }),
  defineScenario({
    id: "tool-updates",
    title: "onUpdate while executing gives tool_execution_update events before the end",
    spec: ["L0"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response(toolCall("download", {})), response("Downloaded.")],
    async run(ctx) {
      const download = defineTool({
        name: "download",
        execute: async (_id, _params, _signal, onUpdate) => {
          onUpdate?.(textResult("50%"));
          await Promise.resolve();
          onUpdate?.(textResult("100%"));
          return textResult("saved");
        },
      });
      await ctx.prompt("Download", { tools: [download] });
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        'tool_execution_update call_1 download [text "50%"]',
        'tool_execution_update call_1 download [text "100%"]',
        'tool_execution_end call_1 download ok [text "saved"]',
      ]),
  }),
  defineScenario({
    id: "terminate-all",
    title: "every result of the batch sets terminate: no further request, the run ends",
    spec: ["L6"],
    surfaces: ["agent", "agentLoop"],
    script: () => [
      response([toolCall("finish", { text: "a" }), toolCall("finish", { text: "b" })]),
      response("never requested"),
    ],
    run: (ctx) =>
      ctx.prompt("Finish", {
        tools: [
          defineTool({
            name: "finish",
            execute: async (_id, params: { text: string }) =>
              textResult(`finished ${params.text}`, { terminate: true }),
          }),
        ],
      }),
    then: (trace) => {
      assertLineCount(trace, "request ", 1);
      assertLinesInOrder(trace, [
        "turn_end assistant(toolUse) results=[call_1, call_2]",
        "agent_end [user, assistant(toolUse), toolResult(call_1), toolResult(call_2)]",
      ]);
    },
  }),
  defineScenario({
    id: "terminate-mixed",
    title: "only some results set terminate: the run goes on with another request",
    spec: ["L6"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response([toolCall("finish", {}), toolCall("echo", { text: "x" })]), response("Carried on.")],
    run: (ctx) =>
      ctx.prompt("Mixed", {
        tools: [
          defineTool({ name: "finish", execute: async () => textResult("finished", { terminate: true }) }),
          echoTool(),
        ],
      }),
    then: (trace) => {
      assertLineCount(trace, "request ", 2);
      assertLinesInOrder(trace, ['tool_execution_end call_1 finish ok [text "finished"] terminate']);
    },
  }),
  defineScenario({
    id: "tool-result-image",
    title: "a tool that answers with text and an image: the result carries both, and the next request sends it",
    spec: ["L4", "L5"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response(toolCall("screenshot", {})), response("I see a pixel.")],
    async run(ctx) {
      const screenshot = defineTool({
        name: "screenshot",
        parameters: Type.Object({}),
        execute: async () => ({ content: [{ type: "text", text: "the screen:" }, pngImage()], details: {} }),
      });
      await ctx.prompt("Look", { tools: [screenshot] });
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        'tool_execution_end call_1 screenshot ok [text "the screen:", image(image/png)]',
        'message_end toolResult call_1 screenshot ok [text "the screen:", image(image/png)]',
        "agent_end [user, assistant(toolUse), toolResult(call_1), assistant(stop)]",
      ]),
  }),
  defineScenario({
    id: "repeated-tool-call-ids",
    title:
      "a response whose two calls share one id (as some OpenAI-compatible servers write them): both run, each answered",
    spec: ["L4", "L5"],
    surfaces: ["agent", "agentLoop"],
    script: () => [
      response([toolCall("echo", { text: "a" }, { id: "dup" }), toolCall("echo", { text: "b" }, { id: "dup" })]),
      response("Both echoed."),
    ],
    run: (ctx) => ctx.prompt("Echo twice", { tools: [echoTool()] }),
    then: (trace) =>
      assertLinesInOrder(trace, [
        'message_end toolResult dup echo ok [text "echo: a"]',
        'message_end toolResult dup echo ok [text "echo: b"]',
        "turn_end assistant(toolUse) results=[dup, dup]",
        'message_end assistant(stop) [text "Both echoed."]',
      ]),
  }),
  defineScenario({
    id: "tool-names-of-object-members",
    title:
      "calls named like members every object has (constructor, __proto__, toString, hasOwnProperty): unknown tools, each answered with an error",
    spec: ["L5"],
    surfaces: ["agent", "agentLoop"],
    script: () => [
      response([
        toolCall("constructor", {}),
        toolCall("__proto__", {}),
        toolCall("toString", {}),
        toolCall("hasOwnProperty", {}),
      ]),
      response("None of those exist."),
    ],
    run: (ctx) => ctx.prompt("Call them", { tools: [echoTool()] }),
    then: (trace) =>
      assertLinesInOrder(trace, [
        'message_end toolResult call_1 constructor error [text "Tool constructor not found"]',
        'message_end toolResult call_2 __proto__ error [text "Tool __proto__ not found"]',
        'message_end toolResult call_3 toString error [text "Tool toString not found"]',
        'message_end toolResult call_4 hasOwnProperty error [text "Tool hasOwnProperty not found"]',
        "turn_end assistant(toolUse) results=[call_1, call_2, call_3, call_4]",
      ]),
  }),
];
