import { Type } from "@sinclair/typebox";
import { Agent, type AgentTool } from "@turnkit/agent-loop";
import { createScriptedModel, response, text, toolCall } from "@turnkit/agent-loop/testing";
import { PiTurnRunner, defineRuntimeTool } from "@turnkit/agent-core";
import type { RuntimeEvent } from "@turnkit/protocol";

/** Where the example prints; a test passes its own collector. */
export type Print = (line: string) => void;

const CityParameters = Type.Object({ city: Type.String() });

const WEATHER: Record<string, string> = { paris: "18 °C, light rain", tokyo: "24 °C, clear" };

/** The scripted session both halves replay: two parallel tool calls, then an answer. */
function scriptedSession() {
  return createScriptedModel([
    response([
      text("Let me look up both cities."),
      toolCall("weather", { city: "Paris" }),
      toolCall("weather", { city: "Tokyo" }),
    ]),
    response("Paris has 18 °C with light rain; Tokyo is clear at 24 °C. Pack an umbrella for Paris."),
  ]);
}

function lookUp(city: string): string {
  return WEATHER[city.toLowerCase()] ?? "unknown";
}

/** Part 1: the bare loop. An `Agent` with one tool, printing the streamed run. */
export async function runAgentDemo(print: Print): Promise<void> {
  const model = scriptedSession();
  const weather: AgentTool<typeof CityParameters> = {
    name: "weather",
    label: "Weather",
    description: "Current weather for a city",
    parameters: CityParameters,
    execute: async (_id, params) => ({ content: [{ type: "text", text: lookUp(params.city) }], details: {} }),
  };
  const agent = new Agent({
    initialState: { systemPrompt: "You are a travel assistant.", model: model.model, tools: [weather] },
    streamFn: model.streamFn,
  });
  let line = "";
  agent.subscribe((event) => {
    switch (event.type) {
      case "message_update":
        if (event.assistantMessageEvent.type === "text_delta") line += event.assistantMessageEvent.delta;
        break;
      case "message_end":
        if (event.message.role === "assistant" && line) print(`assistant: ${line}`);
        line = "";
        break;
      case "tool_execution_start":
        print(`  ▸ ${event.toolName}(${JSON.stringify(event.args)})`);
        break;
      case "tool_execution_end":
        print(`  ✓ ${event.toolName} → ${event.result.content[0]?.text ?? ""}${event.isError ? " (error)" : ""}`);
        break;
      default:
        break;
    }
  });
  print("user: What's the weather in Paris and Tokyo?");
  await agent.prompt("What's the weather in Paris and Tokyo?");
  print(`(${agent.state.messages.length} messages in the transcript)`);
}

/** Part 2: the same session as one runtime turn, printing the `RuntimeEvent` stream. */
export async function runTurnDemo(print: Print): Promise<void> {
  const model = scriptedSession();
  const weather = defineRuntimeTool({
    name: "weather",
    description: "Current weather for a city",
    parameters: CityParameters,
    executionMode: "parallel",
    execute: async (_ctx, input) => ({ content: [{ type: "text", text: lookUp(input.city) }] }),
  });
  let messages = 0;
  let events = 0;
  const runner = new PiTurnRunner({
    allocateMessageId: () => `msg-${++messages}`,
    newEventId: () => `evt-${++events}`,
  });
  const describe = (event: RuntimeEvent): string | undefined => {
    switch (event.type) {
      case "session.status":
        return `session.status ${event.payload.status}${event.payload.error ? ` (${event.payload.error.code})` : ""}`;
      case "stream.resp": {
        const { chunk, messageId } = event.payload;
        if (chunk.kind === "text") return `stream.resp ${messageId} text ${JSON.stringify(chunk.delta)}`;
        if (chunk.kind === "thinking") return `stream.resp ${messageId} thinking`;
        if (chunk.kind === "tool_call") return `stream.resp ${messageId} tool ${chunk.toolName} ${chunk.status}`;
        return `stream.resp ${messageId} finish ${chunk.reason}`;
      }
      case "message.persisted":
        return `message.persisted ${event.payload.messages.map((message) => message.role).join(", ")}`;
      case "runtime.warning":
        return `runtime.warning ${event.payload.code}: ${event.payload.message}`;
      case "debug.trace":
      case "action.required":
        return undefined;
      default: {
        const unreachable: never = event;
        return unreachable;
      }
    }
  };
  const outcome = await runner.runTurn({
    sessionId: "demo",
    turnId: "turn-1",
    systemPrompt: "You are a travel assistant.",
    userMessage: { text: "What's the weather in Paris and Tokyo?" },
    llm: { model: model.model, streamFn: model.streamFn },
    tools: [weather],
    disableBuiltinToolFallback: true,
    eventWriter: {
      push(event) {
        const line = describe(event);
        if (line) print(`#${String(event.seq).padStart(2, "0")} ${line}`);
      },
    },
  });
  print(`outcome: ${outcome.kind}`);
}
