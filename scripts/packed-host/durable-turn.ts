// A durable turn with a tool, on a Postgres of its own: prints the events as the client follows them.
import { Type } from "@sinclair/typebox";
import { defineRuntimeTool } from "@turnkit/agent-core";
import { DurableTurnWorker, durableTool } from "@turnkit/agent-durable";
import { startTestPostgres } from "@turnkit/agent-durable/testing";
import { createScriptedModel, response, toolCall } from "@turnkit/agent-loop/testing";

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
    const events = [];
    for await (const event of worker.client.follow(turn)) events.push(`${event.seq}:${event.type}`);
    console.log(events.join(" "));
    console.log(outcome.kind);
  } finally {
    await worker.shutdown();
  }
} finally {
  await postgres.stop();
}
