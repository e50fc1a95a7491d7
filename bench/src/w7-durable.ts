import type { Context } from "@mariozechner/pi-ai";
import { Type } from "@sinclair/typebox";
import { defineRuntimeTool, PiTurnRunner, type RuntimeTool } from "@turnkit/agent-core";
import { createScriptedModel, response, toolCall, type ScriptEntry } from "@turnkit/agent-core/testing";
import { DurableTurnWorker, type DurableTurnRequest } from "@turnkit/agent-durable";
import { startTestPostgres } from "@turnkit/agent-durable/testing";
import type { StreamFn } from "@turnkit/agent-loop";
import { median } from "./harness.js";

/*
 * W7: what durability costs. The same scripted turn runs in-process
 * (`PiTurnRunner.runTurn`, an event writer that does nothing) and as a
 * durable turn (`DurableTurnWorker` in this process, on an embedded Postgres
 * with its crash-safe defaults: fsync and synchronous commit on).
 *
 * - Per step: turns of 1 and 21 steps (each step a model request answering
 *   with one no-op tool call); the per-step cost is the slope (21-step time
 *   minus 1-step time, over 20), which leaves out what a turn costs once
 *   (the queue, loading history, recording the outcome).
 * - Log write rate: one response of 10,000 text deltas, every delta a
 *   logged event; the rate is logged events over the time from the start of
 *   the turn until its log is complete.
 */

const STEPS_LONG = 21;
const DELTAS = 10_000;

function answer(request: Pick<DurableTurnRequest, "metadata">, context: Context): ScriptEntry {
  if (request.metadata?.kind === "deltas") return response(Array.from({ length: DELTAS }, (_, i) => `d${i}`).join(" "));
  const done = context.messages.filter((message) => message.role === "toolResult").length;
  const steps = Number(request.metadata?.steps ?? 1);
  return done + 1 < steps ? response([toolCall("noop", {}, { id: `call-${done}` })]) : response("done");
}

const noop: RuntimeTool = defineRuntimeTool({
  name: "noop",
  description: "Does nothing",
  parameters: Type.Object({}),
  execute: () => ({ content: [{ type: "text", text: "ok" }] }),
});

function streamFnFor(request: Pick<DurableTurnRequest, "metadata">): StreamFn {
  return (model, context, options) => createScriptedModel([answer(request, context)]).streamFn(model, context, options);
}

const model = createScriptedModel([]).model;

function setupFor(request: Pick<DurableTurnRequest, "metadata">) {
  return {
    systemPrompt: "bench",
    llm: { model, streamFn: streamFnFor(request) },
    llmRetry: false as const,
    tools: [noop],
  };
}

async function inProcess(metadata: Record<string, unknown>, index: number): Promise<number> {
  const started = performance.now();
  const outcome = await new PiTurnRunner().runTurn({
    sessionId: `inproc-${index}`,
    turnId: "t",
    userMessage: { text: "go" },
    disableBuiltinToolFallback: true,
    eventWriter: { push: () => {} },
    ...setupFor({ metadata }),
  });
  if (outcome.kind !== "completed") throw new Error(`in-process turn ended ${outcome.kind}`);
  return performance.now() - started;
}

async function durable(
  worker: DurableTurnWorker,
  metadata: Record<string, unknown>,
  index: number,
): Promise<{ ms: number; events: number }> {
  const started = performance.now();
  const turn = await worker.client.start({
    sessionId: `durable-${index}`,
    turnId: "t",
    userMessage: { text: "go" },
    metadata,
  });
  const outcome = await worker.client.outcome(turn);
  if (outcome.kind !== "completed") throw new Error(`durable turn ended ${outcome.kind}`);
  // The outcome is recorded after the log is complete; the events are counted once it is.
  const events = (await worker.client.readEvents(turn, { limit: 100_000 })).length;
  return { ms: performance.now() - started, events };
}

/** Runs W7 and prints its table. Starts and stops its own Postgres. */
export async function runW7(options: { rounds?: number } = {}): Promise<void> {
  const rounds = options.rounds ?? 5;
  const started = performance.now();
  const postgres = await startTestPostgres({ crashSafe: true });
  let worker: DurableTurnWorker | undefined;
  try {
    worker = await DurableTurnWorker.launch({
      databaseUrl: postgres.url,
      workerId: "bench",
      buildTurn: (request) => setupFor(request),
    });
    const short = { kind: "steps", steps: 1 };
    const long = { kind: "steps", steps: STEPS_LONG };
    const deltas = { kind: "deltas" };
    const samples = {
      inShort: [] as number[],
      inLong: [] as number[],
      inDeltas: [] as number[],
      dShort: [] as number[],
      dLong: [] as number[],
      dDeltas: [] as number[],
    };
    let loggedDeltaEvents = 0;
    let index = 0;
    for (let round = -1; round < rounds; round++) {
      // Round -1 warms up both paths (module loading, JIT, the first connections) and is not counted.
      const inShort = await inProcess(short, index++);
      const inLong = await inProcess(long, index++);
      const inDeltas = await inProcess(deltas, index++);
      const dShort = await durable(worker, short, index++);
      const dLong = await durable(worker, long, index++);
      const dDeltas = await durable(worker, deltas, index++);
      if (round < 0) continue;
      samples.inShort.push(inShort);
      samples.inLong.push(inLong);
      samples.inDeltas.push(inDeltas);
      samples.dShort.push(dShort.ms);
      samples.dLong.push(dLong.ms);
      samples.dDeltas.push(dDeltas.ms);
      loggedDeltaEvents = dDeltas.events;
    }
    const m = Object.fromEntries(Object.entries(samples).map(([key, values]) => [key, median(values)])) as Record<
      keyof typeof samples,
      number
    >;
    const perStepIn = (m.inLong - m.inShort) / (STEPS_LONG - 1);
    const perStepDurable = (m.dLong - m.dShort) / (STEPS_LONG - 1);
    const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
    console.log(
      `\nW7: durable turns on Postgres (fsync on), ${rounds} rounds, medians (${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
    console.log(
      `  turn of 1 step              in-process ${fmt(m.inShort).padStart(10)}   durable ${fmt(m.dShort).padStart(10)}`,
    );
    console.log(
      `  turn of ${STEPS_LONG} steps            in-process ${fmt(m.inLong).padStart(10)}   durable ${fmt(m.dLong).padStart(10)}`,
    );
    console.log(
      `  per step (slope)            in-process ${fmt(perStepIn).padStart(10)}   durable ${fmt(perStepDurable).padStart(10)}   ratio ${(perStepDurable / perStepIn).toFixed(1)}x   durability cost ${fmt(perStepDurable - perStepIn)} per step`,
    );
    console.log(
      `  ${DELTAS.toLocaleString("en-US")}-delta response      in-process ${fmt(m.inDeltas).padStart(10)}   durable ${fmt(m.dDeltas).padStart(10)}   ratio ${(m.dDeltas / m.inDeltas).toFixed(1)}x`,
    );
    console.log(
      `  event log: ${loggedDeltaEvents.toLocaleString("en-US")} events logged at ${Math.round(loggedDeltaEvents / (m.dDeltas / 1000)).toLocaleString("en-US")} events/s (start of the turn to a complete log)`,
    );
  } finally {
    await worker?.shutdown();
    await postgres.stop();
  }
}
