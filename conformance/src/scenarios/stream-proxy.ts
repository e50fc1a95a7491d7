import { errorAfter, hang, response, text, thinking, throwSync, toolCall } from "@turnkit/agent-loop/testing";
import { withProxyServer } from "../proxy-server-fixture.js";
import { keepProviderMessages } from "../scenario-runner.js";
import { defineScenario } from "../scenario.js";
import { user } from "../scenario-messages.js";
import { echoTool } from "../scenario-tools.js";
import { assertLinesInOrder, assertNoLine } from "../trace-assertions.js";

/**
 * `streamProxy` (behaviour L0): each loop with its own proxy client (pi's
 * `streamProxy` on pi, ours on Turnkit) against the same stream-proxy
 * server on 127.0.0.1, which serves the scenario's scripted model. The
 * request lines are the requests the server made.
 */
export const STREAM_PROXY_SCENARIOS = [
  defineScenario({
    id: "proxy-text",
    title: "through a proxy server: a text answer streams as start, deltas, end",
    spec: ["L0", "L2"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response("Hello there, friend")],
    run: (ctx) =>
      withProxyServer(ctx, (proxy) =>
        ctx.prompt("Say hello", { systemPrompt: "Be brief.", streamFn: proxy.streamFn() }),
      ),
    then: (trace) => {
      assertLinesInOrder(trace, ['request 1: [user "Say hello"] system="Be brief." apiKey=proxy-key']);
      assertLinesInOrder(trace, [
        "message_start assistant(stop) []",
        'message_update text_delta " there,"',
        'message_end assistant(stop) [text "Hello there, friend"]',
        "agent_end [user, assistant(stop)]",
      ]);
    },
  }),
  defineScenario({
    id: "proxy-thinking-and-text",
    title: "through a proxy server: thinking then text, both rebuilt by the client",
    spec: ["L0", "L2"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response([thinking("Two plus two is four", { signature: "sig-1" }), text("It is 4.")])],
    run: (ctx) => withProxyServer(ctx, (proxy) => ctx.prompt("What is 2 + 2?", { streamFn: proxy.streamFn() })),
    then: (trace) =>
      assertLinesInOrder(trace, [
        "message_update thinking_start",
        'message_update thinking_delta " plus"',
        "message_update thinking_end",
        "message_update text_start",
        'message_end assistant(stop) [thinking "Two plus two is four", text "It is 4."]',
      ]),
  }),
  defineScenario({
    id: "proxy-tool-call",
    title: "through a proxy server: a tool call's arguments are rebuilt from deltas, the tool runs, the answer follows",
    spec: ["L0", "L4", "L5"],
    surfaces: ["agent", "agentLoop"],
    script: () => [
      response([text("Echoing."), toolCall("echo", { text: "a somewhat longer argument" })]),
      response("Done."),
    ],
    run: (ctx) =>
      withProxyServer(ctx, (proxy) => ctx.prompt("Echo it", { tools: [echoTool()], streamFn: proxy.streamFn() })),
    then: (trace) =>
      assertLinesInOrder(trace, [
        "message_update toolcall_start",
        "message_update toolcall_end call_1 echo",
        'message_end assistant(toolUse) [text "Echoing.", call_1 echo({"text":"a somewhat longer argument"})]',
        'message_end toolResult call_1 echo ok [text "echo: a somewhat longer argument"]',
        'message_end assistant(stop) [text "Done."]',
      ]),
  }),
  defineScenario({
    id: "proxy-upstream-error",
    title: "through a proxy server: a provider error mid-stream arrives as the proxy error event",
    spec: ["L0", "L3"],
    surfaces: ["agent", "agentLoop"],
    script: () => [errorAfter(3, "connection reset", { response: "Counting one two three" })],
    run: (ctx) => withProxyServer(ctx, (proxy) => ctx.prompt("Count", { streamFn: proxy.streamFn() })),
    then: (trace) =>
      assertLinesInOrder(trace, [
        'message_end assistant(error) [text "Counting"] error="connection reset"',
        "agent_end [user, assistant(error)]",
      ]),
  }),
  defineScenario({
    id: "proxy-upstream-throws",
    title: "through a proxy server: a provider stream function that throws becomes an error event with its message",
    spec: ["L0", "L9"],
    surfaces: ["agent", "agentLoop"],
    script: () => [throwSync(new Error("provider misconfigured"))],
    run: (ctx) => withProxyServer(ctx, (proxy) => ctx.prompt("Hi", { streamFn: proxy.streamFn() })),
    then: (trace) => assertLinesInOrder(trace, ['message_end assistant(error) [] error="provider misconfigured"']),
  }),
  defineScenario({
    id: "proxy-auth-refused",
    title:
      "through a proxy server: the host refuses the token; the run ends with 'Proxy error: …' and no model request",
    spec: ["L0", "L3"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response("never requested")],
    run: (ctx) => withProxyServer(ctx, (proxy) => ctx.prompt("Hi", { streamFn: proxy.streamFn("stolen-token") })),
    then: (trace) => {
      assertNoLine(trace, "request 1:");
      assertLinesInOrder(trace, ['message_end assistant(error) [] error="Proxy error: unknown token"']);
    },
  }),
  defineScenario({
    id: "proxy-bad-request",
    title: "through a proxy server: a context the server cannot accept is refused with the field named",
    spec: ["L0", "L3"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response("never requested")],
    run: (ctx) =>
      withProxyServer(ctx, (proxy) =>
        ctx.prompt("Hi", {
          streamFn: proxy.streamFn(),
          convertToLlm: (messages) => [
            ...keepProviderMessages(messages),
            { role: "system", content: "not a pi-ai role" } as never,
          ],
        }),
      ),
    then: (trace) => {
      assertNoLine(trace, "request 1:");
      assertLinesInOrder(trace, [
        'message_end assistant(error) [] error="Proxy error: Invalid proxy request: context.messages[1].role must be one of \\"user\\", \\"assistant\\", \\"toolResult\\""',
      ]);
    },
  }),
  defineScenario({
    id: "proxy-abort-during-streaming",
    title: "through a proxy server: Agent.abort() while a response streams ends it aborted with what had streamed",
    spec: ["L0", "L3", "L10"],
    surfaces: ["agent"],
    script: () => [hang({ afterEvents: 3, response: response("Counting one two three") }), response("never requested")],
    run: (ctx) =>
      withProxyServer(ctx, async (proxy) => {
        const agent = ctx.createAgent({ streamFn: proxy.streamFn() });
        ctx.trace.onEvent(
          (event) => event.type === "message_update" && event.assistantMessageEvent.type === "text_delta",
          () => {
            ctx.note("host aborts");
            agent.abort();
          },
        );
        await ctx.settle("prompt()", agent.prompt("Count"));
      }),
    then: (trace) =>
      assertLinesInOrder(trace, [
        'message_update text_delta "Counting"',
        "· host aborts",
        'message_end assistant(aborted) [text "Counting"] error="Request aborted by user"',
        "agent_end [user, assistant(aborted)]",
        'agent state: streaming=false pending=0 error="Request aborted by user"…',
      ]),
  }),
  defineScenario({
    id: "proxy-abort-signal-during-streaming",
    title: "through a proxy server: agentLoop's AbortSignal fires while a response streams",
    spec: ["L0", "L3", "L10"],
    surfaces: ["agentLoop"],
    script: () => [hang({ afterEvents: 3, response: response("Counting one two three") })],
    run: (ctx) =>
      withProxyServer(ctx, async (proxy) => {
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
          proxy.streamFn(),
        );
      }),
    then: (trace) =>
      assertLinesInOrder(trace, [
        'message_end assistant(aborted) [text "Counting"] error="Request aborted by user"',
        "agent_end [user, assistant(aborted)]",
      ]),
  }),
];
