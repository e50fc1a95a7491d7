import { PiTurnRunner, toRuntimeTool, type RuntimeTool } from "@turnkit/agent-core";
import { createScriptedModel, response, text, toolCall } from "@turnkit/agent-loop/testing";
import type { RuntimeEvent, TurnOutcome } from "@turnkit/protocol";
import { distanceTool } from "./distance-tool.js";
import { OrderLookupTool, type Order } from "./order-lookup-tool.js";

/** Where the example prints; a test passes its own collector. */
export type Print = (line: string) => void;

const QUESTION = "Where are my orders A-1042 and B-7, and how far away is A-1042 in miles?";

const ORDERS: ReadonlyMap<string, Order> = new Map([["A-1042", { status: "out for delivery", kmToGo: 42 }]]);

/** The session the scripted model plays: two lookups in parallel, a conversion, then the answer. */
function scriptedSession() {
  return createScriptedModel([
    response([
      text("Let me look up both orders."),
      toolCall("lookup_order", { orderId: "A-1042" }),
      toolCall("lookup_order", { orderId: "B-7" }),
    ]),
    response([toolCall("km_to_miles", { km: 42 })]),
    response(
      "A-1042 is out for delivery, 42 km (26.1 mi) away. I could not find an order B-7: could you check the number?",
    ),
  ]);
}

function textOf(result: { content: { type: string; text?: string }[] } | undefined): string {
  return (result?.content ?? []).map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join(" ");
}

/**
 * Runs one `PiTurnRunner` turn with both tools (the `defineRuntimeTool` one
 * and an instance of the `@bindTool` class) against the scripted model, and
 * prints each tool call with its result, the assistant's text and the
 * outcome.
 */
export async function runCustomToolDemo(print: Print): Promise<TurnOutcome> {
  const tools: RuntimeTool[] = [toRuntimeTool(new OrderLookupTool(ORDERS)), distanceTool];
  for (const { def } of tools)
    print(`tool ${def.name} (${def.label}, ${def.executionMode ?? "sequential"}): ${def.description}`);

  const model = scriptedSession();
  let messages = 0;
  let events = 0;
  const runner = new PiTurnRunner({
    allocateMessageId: () => `msg-${++messages}`,
    newEventId: () => `evt-${++events}`,
  });
  // Text streams in deltas; a message's text is printed once its first non-text chunk arrives.
  let pendingText = "";
  const flushText = () => {
    if (pendingText) print(`assistant: ${pendingText}`);
    pendingText = "";
  };
  const show = (event: RuntimeEvent): void => {
    if (event.type !== "stream.resp") return;
    const { chunk } = event.payload;
    if (chunk.kind === "text") {
      pendingText += chunk.delta;
      return;
    }
    flushText();
    if (chunk.kind !== "tool_call" || (chunk.status !== "finished" && chunk.status !== "failed")) return;
    const mark = chunk.status === "finished" ? "✓" : "✗";
    print(`  ${mark} ${chunk.toolName}(${JSON.stringify(chunk.arguments ?? {})}) → ${textOf(chunk.result)}`);
    const details = chunk.result?.details;
    if (typeof details === "object" && details !== null && Object.keys(details).length > 0)
      print(`      details ${JSON.stringify(details)}`);
  };

  print(`user: ${QUESTION}`);
  const outcome = await runner.runTurn({
    sessionId: "custom-tool-demo",
    turnId: "turn-1",
    systemPrompt: "You are a shop's delivery assistant.",
    userMessage: { text: QUESTION },
    llm: { model: model.model, streamFn: model.streamFn },
    tools,
    disableBuiltinToolFallback: true,
    eventWriter: { push: show },
  });
  print(`outcome: ${outcome.kind} after ${model.requests.length} model requests`);
  return outcome;
}
