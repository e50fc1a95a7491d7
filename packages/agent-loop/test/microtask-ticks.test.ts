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
  createMicrotaskClock,
  createScriptedModel,
  endWithoutDone,
  response,
  text,
  toolCall,
  withoutStart,
  type ScriptEntry,
} from "../src/testing/index.js";
import { testTool, textResult, user } from "./support/scenario.js";
import { textEvents } from "./support/text-events.js";

/**
 * Pins how many microtask ticks events, tool results and aborts take to
 * reach the loop and the host. Hosts' tests are written against this
 * interleaving (an abort on the first streamed word keeps exactly that
 * word), so a change that saves work must not move any of these numbers.
 *
 * The clock is a chain of microtasks that counts one per tick; each event is
 * stamped with the count when a listener sees it. Everything here runs on
 * microtasks only (no timers), so the stamps are exact.
 */
function stamp(event: AgentEvent, tick: number): string {
  const detail =
    event.type === "message_update"
      ? `:${event.assistantMessageEvent.type}`
      : event.type === "message_end"
        ? `:${event.message.role}`
        : "";
  return `${event.type}${detail}@${tick}`;
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

/** Runs the Agent on `script`, stamping every event a listener sees. */
async function agentTicks(script: ScriptEntry[], listener?: (event: AgentEvent, agent: Agent) => void | Promise<void>) {
  const scripted = createScriptedModel(script);
  const agent = new Agent({
    initialState: { model: scripted.model, tools: sharedTools() },
    streamFn: scripted.streamFn,
  });
  const clock = createMicrotaskClock();
  const stamps: string[] = [];
  agent.subscribe((event) => {
    stamps.push(stamp(event, clock.now()));
    return listener?.(event, agent);
  });
  await agent.prompt("go");
  clock.stop();
  return { stamps, agent };
}

/** Runs the bare loop on streams made by `streamFn`, stamping every event the sink sees. */
async function loopTicks(streamFn: StreamFn, sink?: (event: AgentEvent) => void | Promise<void>) {
  const scripted = createScriptedModel([]);
  const clock = createMicrotaskClock();
  const stamps: string[] = [];
  const emit: AgentEventSink = (event) => {
    stamps.push(stamp(event, clock.now()));
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
  clock.stop();
  return { stamps, messages };
}

/** A pi-ai stream holding `events`, all pushed before the loop reads it. */
function bufferedStream(events: readonly AssistantMessageEvent[]): AssistantMessageEventStream {
  const stream = createAssistantMessageEventStream();
  for (const event of events) stream.push(event);
  stream.end();
  return stream;
}

describe("microtask ticks of events, tool results and aborts", () => {
  it("the Agent: a tool step and a streamed answer reach a listener at the same ticks", async () => {
    const { stamps } = await agentTicks([TOOL_STEP, TEXT_STEP]);
    expect(stamps.join(" ")).toMatchInlineSnapshot(
      `"agent_start@0 turn_start@0 message_start@0 message_end:user@0 message_start@4 message_update:toolcall_start@6 message_update:toolcall_delta@8 message_update:toolcall_end@10 message_update:toolcall_start@12 message_update:toolcall_delta@14 message_update:toolcall_end@16 message_end:assistant@20 tool_execution_start@22 tool_execution_start@22 tool_execution_end@25 tool_execution_end@28 message_start@31 message_end:toolResult@31 message_start@31 message_end:toolResult@31 turn_end@32 turn_start@33 message_start@36 message_update:text_start@38 message_update:text_delta@40 message_update:text_delta@42 message_update:text_delta@44 message_update:text_delta@46 message_update:text_delta@48 message_update:text_delta@50 message_update:text_end@52 message_end:assistant@56 turn_end@58 agent_end@60"`,
    );
  });

  it("the Agent: a listener that waits on each event keeps the same ticks", async () => {
    const { stamps } = await agentTicks([TOOL_STEP, TEXT_STEP], async () => {
      await Promise.resolve();
    });
    expect(stamps.join(" ")).toMatchInlineSnapshot(
      `"agent_start@0 turn_start@4 message_start@8 message_end:user@12 message_start@21 message_update:toolcall_start@27 message_update:toolcall_delta@33 message_update:toolcall_end@39 message_update:toolcall_start@45 message_update:toolcall_delta@51 message_update:toolcall_end@57 message_end:assistant@65 tool_execution_start@71 tool_execution_start@76 tool_execution_end@84 tool_execution_end@90 message_start@97 message_end:toolResult@101 message_start@107 message_end:toolResult@111 turn_end@118 turn_start@123 message_start@130 message_update:text_start@136 message_update:text_delta@142 message_update:text_delta@148 message_update:text_delta@154 message_update:text_delta@160 message_update:text_delta@166 message_update:text_delta@172 message_update:text_end@178 message_end:assistant@186 turn_end@192 agent_end@198"`,
    );
  });

  it("a listener that aborts on the first streamed word sees the same partial text, at the same ticks", async () => {
    let aborted = false;
    const { stamps, agent } = await agentTicks([response("Let me check that for you")], (event, agent) => {
      if (!aborted && event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") {
        aborted = true;
        agent.abort();
      }
    });
    const last = agent.state.messages.at(-1) as AssistantMessage;
    expect(last.stopReason).toBe("aborted");
    expect(last.content).toEqual([text("Let me check that for")]);
    expect(stamps.join(" ")).toMatchInlineSnapshot(
      `"agent_start@0 turn_start@0 message_start@0 message_end:user@0 message_start@4 message_update:text_start@6 message_update:text_delta@8 message_update:text_delta@10 message_update:text_delta@12 message_update:text_delta@14 message_update:text_delta@16 message_end:assistant@20 turn_end@22 agent_end@23"`,
    );
  });

  it("a listener that aborts when the first tool starts: the batch and the run end at the same ticks", async () => {
    let aborted = false;
    const { stamps } = await agentTicks([TOOL_STEP, TEXT_STEP], (event, agent) => {
      if (!aborted && event.type === "tool_execution_start") {
        aborted = true;
        agent.abort();
      }
    });
    expect(stamps.join(" ")).toMatchInlineSnapshot(
      `"agent_start@0 turn_start@0 message_start@0 message_end:user@0 message_start@4 message_update:toolcall_start@6 message_update:toolcall_delta@8 message_update:toolcall_end@10 message_update:toolcall_start@12 message_update:toolcall_delta@14 message_update:toolcall_end@16 message_end:assistant@20 tool_execution_start@22 tool_execution_end@22 tool_execution_start@22 tool_execution_end@23 message_start@27 message_end:toolResult@27 message_start@27 message_end:toolResult@27 turn_end@28 agent_end@29"`,
    );
  });

  it("the loop: responses without a start event or a terminal event keep their ticks", async () => {
    const scripted = createScriptedModel([
      withoutStart(response([toolCall("fast")])),
      endWithoutDone(response("done now"), { resolveResult: true }),
    ]);
    const { stamps } = await loopTicks(scripted.streamFn);
    expect(stamps.join(" ")).toMatchInlineSnapshot(
      `"agent_start@0 turn_start@0 message_start@0 message_end:user@0 message_start@12 message_end:assistant@13 tool_execution_start@15 tool_execution_end@18 message_start@21 message_end:toolResult@21 turn_end@22 turn_start@23 message_start@26 message_update:text_start@28 message_update:text_delta@30 message_update:text_delta@32 message_update:text_end@34 message_end:assistant@38 turn_end@40 agent_end@42"`,
    );
  });

  it("the loop: a buffered pi-ai stream, read by a sink that waits on some events", async () => {
    const final = assistantMessage([text("hi")], { stopReason: "stop" });
    const { stamps } = await loopTicks(
      () => bufferedStream(textEvents(final)),
      (event) => (event.type === "message_update" || event.type === "message_start" ? Promise.resolve() : undefined),
    );
    expect(stamps.join(" ")).toMatchInlineSnapshot(
      `"agent_start@0 turn_start@0 message_start@0 message_end:user@1 message_start@6 message_update:text_start@9 message_update:text_delta@12 message_update:text_end@15 message_end:assistant@20 turn_end@22 agent_end@24"`,
    );
  });

  it("the loop: a hand-written response whose return() settles later, and one without return()", async () => {
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
    const { stamps } = await loopTicks(streamFn);
    expect(closed).toEqual(["return"]);
    expect(stamps.join(" ")).toMatchInlineSnapshot(
      `"agent_start@0 turn_start@0 message_start@0 message_end:user@0 message_start@3 message_update:text_start@4 message_update:text_delta@5 message_update:text_end@6 message_end:assistant@9 turn_end@11 agent_end@13"`,
    );
  });

  it("the loop: a sink that fails on an update, and a stream whose next() rejects, end the run at the same ticks", async () => {
    const final = assistantMessage([text("hi")], { stopReason: "stop" });
    const failing = await loopTicks(
      () => bufferedStream(textEvents(final)),
      (event) => {
        if (event.type === "message_update") return Promise.reject(new Error("listener failed"));
      },
    );
    expect(failing.stamps.join(" ")).toMatchInlineSnapshot(
      `"agent_start@0 turn_start@0 message_start@0 message_end:user@0 message_start@4 message_update:text_start@6 message_end:assistant@11 turn_end@13 agent_end@15"`,
    );

    const rejecting = await loopTicks(() => {
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
    expect(rejecting.stamps.join(" ")).toMatchInlineSnapshot(
      `"agent_start@0 turn_start@0 message_start@0 message_end:user@0 message_start@3 message_update:text_start@4 message_update:text_delta@5 message_end:assistant@6 turn_end@8 agent_end@9"`,
    );
  });
});
