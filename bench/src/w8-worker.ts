/*
 * One worker process of W8 (see w8-scale.ts): a DurableTurnWorker whose turns
 * are a few steps of a scripted model with a delay as its latency and a tool
 * that takes a while. Every tool start and end is appended to COUNT_FILE, so
 * the bench can tell a finished call that ran again. Prints "ready" once it
 * takes turns and its resident memory every 250 ms ("rss <bytes>").
 */
import { appendFileSync } from "node:fs";
import type { Context } from "@mariozechner/pi-ai";
import { Type } from "@sinclair/typebox";
import { defineRuntimeTool } from "@turnkit/agent-core";
import { createScriptedModel, response, toolCall } from "@turnkit/agent-core/testing";
import { DurableTurnWorker, type DurableTurnRequest } from "@turnkit/agent-durable";
import type { StreamFn } from "@turnkit/agent-loop";

const env = (name: string) => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`w8-worker needs ${name}`);
  return value;
};
const countFile = env("COUNT_FILE");
const modelDelayMs = Number(process.env.MODEL_DELAY_MS ?? 20);
const toolMs = Number(process.env.TOOL_MS ?? 50);
const model = createScriptedModel([]).model;

/** Steps of tool calls, then an answer; the call ids follow the step, so a re-sent request asks for the same call. */
function answer(request: DurableTurnRequest, context: Context) {
  const done = context.messages.filter((message) => message.role === "toolResult").length;
  const steps = Number(request.metadata?.steps ?? 3);
  // A few events, each `modelDelayMs` apart: the model's latency.
  const timing = { eventDelayMs: modelDelayMs };
  return done + 1 < steps
    ? response([toolCall("work", { step: done }, { id: `${request.turnId}-call-${done}` })], timing)
    : response("all steps done", timing);
}

const started = performance.now();
const worker = await DurableTurnWorker.launch({
  databaseUrl: env("DATABASE_URL"),
  workerId: env("WORKER_ID"),
  concurrency: Number(process.env.CONCURRENCY ?? 64),
  leaseMs: Number(process.env.LEASE_MS ?? 4000),
  buildTurn: (request) => {
    const streamFn: StreamFn = (m, context, options) =>
      createScriptedModel([answer(request, context)]).streamFn(m, context, options);
    const work = defineRuntimeTool({
      name: "work",
      description: "Works for a while",
      parameters: Type.Object({ step: Type.Number() }),
      execute: async (ctx) => {
        const key = `${request.sessionId}/${ctx.toolCallId}`;
        appendFileSync(countFile, `start ${key}\n`);
        await new Promise((resolve) => setTimeout(resolve, toolMs));
        appendFileSync(countFile, `end ${key}\n`);
        return { content: [{ type: "text", text: "worked" }] };
      },
    });
    return { systemPrompt: "w8", llm: { model, streamFn }, llmRetry: false as const, tools: [work] };
  },
});
console.log(`ready ${Math.round(performance.now() - started)}`);
setInterval(() => console.log(`rss ${process.memoryUsage().rss}`), 250).unref();
process.stdin.resume();
process.stdin.on("end", () => void worker.shutdown().then(() => process.exit(0)));
process.on("SIGTERM", () => void worker.shutdown().then(() => process.exit(0)));
