// A durable turn with a tool, on a Postgres of its own: prints the events as the client follows them, then the
// answer as the AI SDK's UI message (what a useChat page shows) and its SSE body's size.
import { Type } from "@sinclair/typebox";
import { defineRuntimeTool } from "@turnkit/agent-core";
import { DurableTurnWorker, durableTool } from "@turnkit/agent-durable";
import { startTestPostgres } from "@turnkit/agent-durable/testing";
import { createScriptedModel, response, toolCall } from "@turnkit/agent-loop/testing";
import type { RuntimeEvent } from "@turnkit/protocol";
import {
  readTurnUIMessage,
  type TurnkitUIMessage,
  toUIMessageChunks,
  toUIMessageStreamResponse,
} from "@turnkit/ui-stream";

const postgres = await startTestPostgres();
try {
  const model = createScriptedModel([response([toolCall("add", { a: 2, b: 3 })]), response("It is 5.")]);
  const add = defineRuntimeTool({
    name: "add",
    description: "Adds two numbers",
    parameters: Type.Object({ a: Type.Number(), b: Type.Number() }),
    execute: async (_ctx, { a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  });
  const worker = await DurableTurnWorker.launch({
    databaseUrl: postgres.url,
    buildTurn: () => ({
      systemPrompt: "Be brief.",
      llm: { model: model.model, streamFn: model.streamFn },
      tools: [durableTool(add, { replay: "safe" })],
    }),
  });
  try {
    const turn = await worker.client.start({ sessionId: "s1", turnId: "t1", userMessage: { text: "2 + 3?" } });
    const outcome = await worker.client.outcome(turn);
    const events: RuntimeEvent[] = [];
    for await (const event of worker.client.follow(turn)) events.push(event);
    console.log(events.map((event) => `${event.seq}:${event.type}`).join(" "));
    const message: TurnkitUIMessage = await readTurnUIMessage(events);
    const parts = message.parts.map((part) => (part.type === "text" ? `text "${part.text}"` : part.type));
    console.log(`UI message ${message.id}: ${parts.join(", ")}; status ${message.metadata?.status}`);
    const body = await toUIMessageStreamResponse(toUIMessageChunks(events), { keepAliveMs: 0 }).text();
    console.log(`SSE body: ${body.length} characters, ends ${JSON.stringify(body.slice(-14))}`);
    console.log(outcome.kind);
  } finally {
    await worker.shutdown();
  }
} finally {
  await postgres.stop();
}
