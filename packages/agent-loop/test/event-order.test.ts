import {
  createAssistantMessageEventStream,
  type AssistantMessage,
  type AssistantMessageEvent,
  type AssistantMessageEventStream,
} from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { Agent, runAgentLoop, type AgentEvent, type AgentEventSink, type StreamFn } from "../src/index.js";
import {
  assistantMessage,
  createScriptedModel,
  createVirtualClock,
  endWithoutDone,
  response,
  text,
  toolCall,
  withoutStart,
  type ScriptEntry,
  type ScriptedModelOptions,
} from "../src/testing/index.js";
import { testTool, textResult, user } from "./support/scenario.js";
import { textEvents } from "./support/text-events.js";

/**
 * The order in which events, tool results and aborts reach the host, for a
 * tool step and a streamed answer, for listeners that answer synchronously
 * or wait, and for responses that are not plain pi-ai streams.
 */
function label(event: AgentEvent): string {
  if (event.type === "message_update") return `message_update:${event.assistantMessageEvent.type}`;
  if (event.type === "message_end") return `message_end:${event.message.role}`;
  if (event.type === "tool_execution_start" || event.type === "tool_execution_end")
    return `${event.type}:${event.toolName}`;
  return event.type;
}

function sharedTools() {
  return [
    testTool("fast", { execute: async () => textResult("fast done") }),
    testTool("slow", {
      execute: async () => {
        for (let index = 0; index < 3; index++) await Promise.resolve();
        return textResult("slow done");
      },
    }),
  ];
}

const TOOL_STEP = response([toolCall("fast"), toolCall("slow")]);
const TEXT_STEP = response("Let me check that for you");

/** Runs the Agent on `script`, labelling every event a listener sees. */
async function agentEvents(
  script: ScriptEntry[],
  listener?: (event: AgentEvent, agent: Agent) => void | Promise<void>,
  options?: ScriptedModelOptions,
) {
  const scripted = createScriptedModel(script, options);
  const agent = new Agent({
    initialState: { model: scripted.model, tools: sharedTools() },
    streamFn: scripted.streamFn,
  });
  const labels: string[] = [];
  agent.subscribe((event) => {
    labels.push(label(event));
    return listener?.(event, agent);
  });
  await agent.prompt("go");
  return { labels, agent };
}

/** Runs the bare loop on streams made by `streamFn`, labelling every event the sink sees. */
async function loopEvents(streamFn: StreamFn, sink?: (event: AgentEvent) => void | Promise<void>) {
  const scripted = createScriptedModel([]);
  const labels: string[] = [];
  const emit: AgentEventSink = (event) => {
    labels.push(label(event));
    return sink?.(event);
  };
  const messages = await runAgentLoop(
    [user("go")],
    { systemPrompt: "", messages: [], tools: sharedTools() },
    { model: scripted.model, convertToLlm: (all) => all as never },
    emit,
    new AbortController().signal,
    streamFn,
  );
  return { labels, messages };
}

/** A pi-ai stream holding `events`, all pushed before the loop reads it. */
function bufferedStream(events: readonly AssistantMessageEvent[]): AssistantMessageEventStream {
  const stream = createAssistantMessageEventStream();
  for (const event of events) stream.push(event);
  stream.end();
  return stream;
}

const PROMPT = ["agent_start", "turn_start", "message_start", "message_end:user"];
const TOOL_RESPONSE = [
  "message_start",
  "message_update:toolcall_start",
  "message_update:toolcall_delta",
  "message_update:toolcall_end",
  "message_update:toolcall_start",
  "message_update:toolcall_delta",
  "message_update:toolcall_end",
  "message_end:assistant",
];
const TOOL_RESULTS = ["message_start", "message_end:toolResult", "message_start", "message_end:toolResult"];
const TEXT_RESPONSE = [
  "message_start",
  "message_update:text_start",
  ...Array<string>(6).fill("message_update:text_delta"),
  "message_update:text_end",
  "message_end:assistant",
];
const TOOL_THEN_TEXT = [
  ...PROMPT,
  ...TOOL_RESPONSE,
  "tool_execution_start:fast",
  "tool_execution_start:slow",
  "tool_execution_end:fast",
  "tool_execution_end:slow",
  ...TOOL_RESULTS,
  "turn_end",
  "turn_start",
  ...TEXT_RESPONSE,
  "turn_end",
  "agent_end",
];

describe("the order of events, tool results and aborts", () => {
  it("the Agent: parallel tools start together and end in completion order; results follow in call order", async () => {
    const { labels, agent } = await agentEvents([TOOL_STEP, TEXT_STEP]);
    expect(labels).toEqual(TOOL_THEN_TEXT);
    const results = agent.state.messages.filter((message) => message.role === "toolResult");
    expect(results.map((message) => message.toolName)).toEqual(["fast", "slow"]);
  });

  it("the Agent: a listener that waits on each event sees the same order", async () => {
    const { labels } = await agentEvents([TOOL_STEP, TEXT_STEP], async () => {
      await Promise.resolve();
    });
    expect(labels).toEqual(TOOL_THEN_TEXT);
  });

  it("a listener that aborts on the first streamed word: the response ends aborted with only what streamed before the abort", async () => {
    const clock = createVirtualClock();
    let aborted = false;
    const run = agentEvents(
      [response("Let me check that for you")],
      (event, agent) => {
        if (!aborted && event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") {
          aborted = true;
          agent.abort();
        }
      },
      { clock, eventDelayMs: 10 },
    );
    await clock.runAll();
    const { labels, agent } = await run;
    const last = agent.state.messages.at(-1) as AssistantMessage;
    expect(last.stopReason).toBe("aborted");
    expect(last.content).toEqual([text("Let")]);
    expect(labels).toEqual([
      ...PROMPT,
      "message_start",
      "message_update:text_start",
      "message_update:text_delta",
      "message_end:assistant",
      "turn_end",
      "agent_end",
    ]);
  });

  it("a listener that aborts when the first tool starts: every call ends not executed, and the run ends after the batch", async () => {
    let aborted = false;
    const { labels, agent } = await agentEvents([TOOL_STEP, TEXT_STEP], (event, agent) => {
      if (!aborted && event.type === "tool_execution_start") {
        aborted = true;
        agent.abort();
      }
    });
    expect(labels).toEqual([
      ...PROMPT,
      ...TOOL_RESPONSE,
      "tool_execution_start:fast",
      "tool_execution_end:fast",
      "tool_execution_start:slow",
      "tool_execution_end:slow",
      ...TOOL_RESULTS,
      "turn_end",
      "agent_end",
    ]);
    const results = agent.state.messages.filter((message) => message.role === "toolResult");
    expect(results.map((message) => [message.toolName, message.isError])).toEqual([
      ["fast", true],
      ["slow", true],
    ]);
  });

  it("the loop: a response without a start event, and one that ends without a terminal event but settled its result", async () => {
    const scripted = createScriptedModel([
      withoutStart(response([toolCall("fast")])),
      endWithoutDone(response("done now"), { resolveResult: true }),
    ]);
    const { labels, messages } = await loopEvents(scripted.streamFn);
    expect(labels).toEqual([
      ...PROMPT,
      "message_start",
      "message_end:assistant",
      "tool_execution_start:fast",
      "tool_execution_end:fast",
      "message_start",
      "message_end:toolResult",
      "turn_end",
      "turn_start",
      "message_start",
      "message_update:text_start",
      "message_update:text_delta",
      "message_update:text_delta",
      "message_update:text_end",
      "message_end:assistant",
      "turn_end",
      "agent_end",
    ]);
    expect(messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop", content: [text("done now")] });
  });

  it("the loop: a buffered pi-ai stream, read by a sink that waits on some events", async () => {
    const final = assistantMessage([text("hi")], { stopReason: "stop" });
    const { labels, messages } = await loopEvents(
      () => bufferedStream(textEvents(final)),
      (event) => (event.type === "message_update" || event.type === "message_start" ? Promise.resolve() : undefined),
    );
    expect(labels).toEqual([
      ...PROMPT,
      "message_start",
      "message_update:text_start",
      "message_update:text_delta",
      "message_update:text_end",
      "message_end:assistant",
      "turn_end",
      "agent_end",
    ]);
    expect(messages.at(-1)).toBe(final);
  });

  it("the loop: a hand-written response is closed with return() after its terminal event; one without return() is read the same", async () => {
    const final = assistantMessage([text("hi")], { stopReason: "stop" });
    let responses = 0;
    const closed: string[] = [];
    const streamFn: StreamFn = () => {
      const events = textEvents(final);
      const withReturn = responses++ === 0;
      let index = 0;
      const iterator: AsyncIterator<AssistantMessageEvent> = {
        next: () =>
          Promise.resolve(
            index < events.length ? { value: events[index++]!, done: false } : { value: undefined, done: true },
          ),
      };
      if (withReturn) {
        iterator.return = () => {
          closed.push("return");
          return Promise.resolve().then(() => ({ value: undefined, done: true }));
        };
      }
      return { [Symbol.asyncIterator]: () => iterator } as never;
    };
    const { labels } = await loopEvents(streamFn);
    expect(closed).toEqual(["return"]);
    expect(labels).toEqual([
      ...PROMPT,
      "message_start",
      "message_update:text_start",
      "message_update:text_delta",
      "message_update:text_end",
      "message_end:assistant",
      "turn_end",
      "agent_end",
    ]);
  });

  it("the loop: a sink that fails on an update, and a stream whose next() rejects, end the run after the response", async () => {
    const final = assistantMessage([text("hi")], { stopReason: "stop" });
    const failing = await loopEvents(
      () => bufferedStream(textEvents(final)),
      (event) => {
        if (event.type === "message_update") return Promise.reject(new Error("listener failed"));
      },
    );
    expect(failing.labels).toEqual([
      ...PROMPT,
      "message_start",
      "message_update:text_start",
      "message_end:assistant",
      "turn_end",
      "agent_end",
    ]);
    expect(failing.messages.at(-1)).toMatchObject({ stopReason: "error", errorMessage: "listener failed" });

    const rejecting = await loopEvents(() => {
      let index = 0;
      const events = textEvents(final).slice(0, 3);
      const iterator: AsyncIterator<AssistantMessageEvent> = {
        next: () =>
          index < events.length
            ? Promise.resolve({ value: events[index++]!, done: false })
            : Promise.reject(new Error("broken")),
      };
      return { [Symbol.asyncIterator]: () => iterator } as never;
    });
    expect(rejecting.labels).toEqual([
      ...PROMPT,
      "message_start",
      "message_update:text_start",
      "message_update:text_delta",
      "message_end:assistant",
      "turn_end",
      "agent_end",
    ]);
    expect(rejecting.messages.at(-1)).toMatchObject({ stopReason: "error", errorMessage: "broken" });
  });
});
