import {
  type AssistantMessageEvent,
  type AssistantMessageEventStream,
  createAssistantMessageEventStream,
} from "@mariozechner/pi-ai";
import {
  assistantMessage,
  response,
  text,
  thinking,
  toolCall,
  withoutStart,
  eventsAfterDone,
} from "@turnkit/agent-loop/testing";
import { notice } from "../custom-messages.js";
import { keepProviderMessages } from "../scenario-runner.js";
import { defineScenario } from "../scenario.js";
import { pngImage, user } from "../scenario-messages.js";
import { echoTool } from "../scenario-tools.js";
import { assertLinesInOrder, assertLineCount, assertNoLine } from "../trace-assertions.js";

/** A stream of `start`, an event of a type pi-ai does not have, one text block and `done`. */
function streamWithUnknownEvent(): AssistantMessageEventStream {
  const final = assistantMessage("Known");
  const stream = createAssistantMessageEventStream();
  const partial = { ...final, content: [] };
  queueMicrotask(() => {
    stream.push({ type: "start", partial });
    stream.push({ type: "weird", partial } as unknown as AssistantMessageEvent);
    stream.push({ type: "text_start", contentIndex: 0, partial });
    stream.push({ type: "text_delta", contentIndex: 0, delta: "Known", partial });
    stream.push({ type: "text_end", contentIndex: 0, content: "Known", partial });
    stream.push({ type: "done", reason: "stop", message: final });
  });
  return stream;
}

/** Streaming one response (behaviours L1, L2): what reaches listeners and what the model is sent. */
export const RESPONSE_SCENARIOS = [
  defineScenario({
    id: "text-only",
    title: "a text-only answer streams as start, deltas, end, then the run ends",
    spec: ["L1", "L2"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response("Hello there, friend")],
    run: (ctx) => ctx.prompt("Say hello", { systemPrompt: "Be brief." }),
    then: (trace) => {
      assertLinesInOrder(trace, ['request 1: [user "Say hello"] system="Be brief."']);
      assertLinesInOrder(trace, [
        "agent_start",
        "turn_start",
        'message_end user [text "Say hello"]',
        "message_start assistant(stop) []",
        'message_update text_delta " there,"',
        'message_end assistant(stop) [text "Hello there, friend"]',
        "turn_end assistant(stop) results=[]",
        "agent_end [user, assistant(stop)]",
      ]);
    },
  }),
  defineScenario({
    id: "thinking-and-text",
    title: "thinking then text: both blocks stream and end up in one message",
    spec: ["L2"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response([thinking("Two plus two is four"), text("It is 4.")])],
    run: (ctx) => ctx.prompt("What is 2 + 2?"),
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
    id: "multiple-prompts",
    title: "several prompt messages are announced in order and sent in one request",
    spec: ["L0", "L1"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response("Both read.")],
    run: (ctx) => ctx.prompt([user("First part."), user("Second part.")]),
    then: (trace) => {
      assertLinesInOrder(trace, [
        'message_end user [text "First part."]',
        'message_end user [text "Second part."]',
        "agent_end [user, user, assistant(stop)]",
      ]);
      assertLinesInOrder(trace, ['request 1: [user "First part.", user "Second part."]']);
    },
  }),
  defineScenario({
    id: "prompt-with-images",
    title: "prompt(text, images) sends one user message with the text and the image",
    spec: ["L8"],
    surfaces: ["agent"],
    script: () => [response("A tiny picture.")],
    async run(ctx) {
      const agent = ctx.createAgent();
      await ctx.settle("prompt()", agent.prompt("What is in this picture?", [pngImage()]));
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        'message_end user [text "What is in this picture?", image(image/png)]',
        'request 1: [user "What is in this picture? <image/png>"]',
      ]),
  }),
  defineScenario({
    id: "stream-without-start",
    title: "a stream that skips `start` still gives message_start and message_end for the final message",
    spec: ["L2"],
    surfaces: ["agent", "agentLoop"],
    script: () => [withoutStart("Answer without a start event")],
    run: (ctx) => ctx.prompt("Hi"),
    then: (trace) => {
      assertNoLine(trace, "message_update");
      assertLinesInOrder(trace, [
        'message_start assistant(stop) [text "Answer without a start event"]',
        'message_end assistant(stop) [text "Answer without a start event"]',
      ]);
    },
  }),
  defineScenario({
    id: "unknown-stream-event",
    title: "an event of a type pi-ai does not have is skipped: no message_update for it",
    spec: ["L2"],
    surfaces: ["agent", "agentLoop"],
    script: () => [],
    run: (ctx) => ctx.prompt("Hi", { streamFn: streamWithUnknownEvent }),
    then: (trace) => {
      assertNoLine(trace, "message_update weird");
      assertLinesInOrder(trace, [
        "message_start assistant(stop) []",
        'message_update text_delta "Known"',
        'message_end assistant(stop) [text "Known"]',
      ]);
    },
  }),
  defineScenario({
    id: "events-after-done",
    title: "events a stream yields after `done` are not read",
    spec: ["L2"],
    surfaces: ["agent", "agentLoop"],
    script: () => [eventsAfterDone("The real answer", { reachConsumer: true })],
    run: (ctx) => ctx.prompt("Hi"),
    then: (trace) => {
      assertNoLine(trace, 'message_update text_delta "late text after done"');
      assertLinesInOrder(trace, ['message_end assistant(stop) [text "The real answer"]']);
    },
  }),
  defineScenario({
    id: "get-api-key-per-request",
    title: "getApiKey is asked again for every request, with the model's provider",
    spec: ["L2"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response(toolCall("echo", { text: "one" })), response("Done.")],
    async run(ctx) {
      let asked = 0;
      await ctx.prompt("Echo one", {
        tools: [echoTool()],
        getApiKey: async (provider) => {
          asked += 1;
          ctx.note(`getApiKey(${provider}) #${asked}`);
          return `key-${asked}`;
        },
      });
    },
    then: (trace) => {
      assertLineCount(trace, "· getApiKey(scripted)", 2);
      assertLinesInOrder(trace, [
        "· getApiKey(scripted) #1",
        'request 1: [user "Echo one"] tools=[echo] apiKey=key-1',
        "· getApiKey(scripted) #2",
        'request 2: [user "Echo one", assistant(toolUse), toolResult(call_1)] tools=[echo] apiKey=key-2',
      ]);
    },
  }),
  defineScenario({
    id: "custom-message-default-filter",
    title: "a host-defined message in the history is kept in the transcript but not sent by the default convertToLlm",
    spec: ["L0", "L2"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response("Noted.")],
    run: (ctx) => ctx.prompt("Continue", { messages: [user("Earlier question"), notice("shown in the UI only")] }),
    then: (trace) => assertLinesInOrder(trace, ['request 1: [user "Earlier question", user "Continue"]']),
  }),
  defineScenario({
    id: "transform-context-and-convert",
    title: "transformContext runs first and may add a custom message; convertToLlm maps it for the model",
    spec: ["L2"],
    surfaces: ["agent", "agentLoop"],
    script: () => [response(toolCall("echo", { text: "x" })), response("Done.")],
    async run(ctx) {
      await ctx.prompt("Go", {
        tools: [echoTool()],
        messages: [notice("old notice")],
        transformContext: async (messages) => {
          ctx.note(`transformContext(${messages.map((message) => message.role).join(", ")})`);
          return [...messages, notice("memory: the user likes brevity")];
        },
        convertToLlm: (messages) => {
          ctx.note(`convertToLlm(${messages.length} messages)`);
          return messages.flatMap((message) => {
            if (message.role !== "notice") return keepProviderMessages([message]);
            if (message.text.startsWith("old")) return [];
            return [user(`[notice] ${message.text}`)];
          });
        },
      });
    },
    then: (trace) =>
      assertLinesInOrder(trace, [
        "· transformContext(notice, user)",
        "· convertToLlm(3 messages)",
        'request 1: [user "Go", user "[notice] memory: the user likes brevity"] tools=[echo]',
        "· transformContext(notice, user, assistant, toolResult)",
        'request 2: [user "Go", assistant(toolUse), toolResult(call_1), user "[notice] memory: the user likes brevity"] tools=[echo]',
      ]),
  }),
];
