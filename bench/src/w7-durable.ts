import type { Context } from "@mariozechner/pi-ai";
import { Type } from "@sinclair/typebox";
import { defineRuntimeTool, PiTurnRunner, type RuntimeTool } from "@turnkit/agent-core";
import { createScriptedModel, response, toolCall, type ScriptEntry } from "@turnkit/agent-core/testing";
import { DurableTurnWorker, type DurableTurnRequest } from "@turnkit/agent-durable";
import { startTestPostgres } from "@turnkit/agent-durable/testing";
import type { StreamFn } from "@turnkit/agent-loop";
import pg from "pg";
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
 * - Commits per step: the transactions that wrote something (each one
 *   Postgres gives a transaction id), counted the same way as the time:
 *   the 21-step turn's count minus the 1-step turn's, over 20. Whether a
 *   commit waits for the disk depends on its connection (see the package
 *   README); this counts both kinds.
 * - First event: from calling `start` to the first event a `follow` of the
 *   turn receives, on an idle worker.
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

/** The next transaction id Postgres will give out; the difference of two readings counts the writing transactions between them. */
async function nextTransactionId(db: pg.Client): Promise<number> {
  const { rows } = await db.query("SELECT pg_current_xact_id()::text AS xid");
  // This reading took an id of its own: the next one is one further.
  return Number(rows[0].xid) + 1;
}

async function durable(
  worker: DurableTurnWorker,
  db: pg.Client,
  metadata: Record<string, unknown>,
  index: number,
): Promise<{ ms: number; firstEventMs: number; events: number; commits: number }> {
  const xidBefore = await nextTransactionId(db);
  const address = { sessionId: `durable-${index}`, turnId: "t" };
  const started = performance.now();
  // The follower is waiting before the turn starts, as a client showing the turn would be.
  const firstEvent = (async () => {
    for await (const _event of worker.client.follow(address)) return performance.now() - started;
    throw new Error("the turn's log ended without an event");
  })();
  const turn = await worker.client.start({ ...address, userMessage: { text: "go" }, metadata });
  const outcome = await worker.client.outcome(turn);
  const ms = performance.now() - started;
  if (outcome.kind !== "completed") throw new Error(`durable turn ended ${outcome.kind}`);
  // The transactions of the turn, less the reading itself.
  const commits = (await nextTransactionId(db)) - xidBefore - 1;
  // The outcome is recorded after the log is complete; the events are counted once it is.
  const events = (await worker.client.readEvents(turn, { limit: 100_000 })).length;
  return { ms, firstEventMs: await firstEvent, events, commits };
}

/** Runs W7 and prints its table. Starts and stops its own Postgres. */
export async function runW7(options: { rounds?: number } = {}): Promise<void> {
  const rounds = options.rounds ?? 5;
  const started = performance.now();
  const postgres = await startTestPostgres({ crashSafe: true });
  let worker: DurableTurnWorker | undefined;
  const db = new pg.Client({ connectionString: postgres.url });
  try {
    await db.connect();
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
      firstEvent: [] as number[],
      commitsShort: [] as number[],
      commitsLong: [] as number[],
    };
    let loggedDeltaEvents = 0;
    let index = 0;
    for (let round = -1; round < rounds; round++) {
      // Round -1 warms up both paths (module loading, JIT, the first connections) and is not counted.
      const inShort = await inProcess(short, index++);
      const inLong = await inProcess(long, index++);
      const inDeltas = await inProcess(deltas, index++);
      const dShort = await durable(worker, db, short, index++);
      const dLong = await durable(worker, db, long, index++);
      const dDeltas = await durable(worker, db, deltas, index++);
      if (round < 0) continue;
      samples.inShort.push(inShort);
      samples.inLong.push(inLong);
      samples.inDeltas.push(inDeltas);
      samples.dShort.push(dShort.ms);
      samples.dLong.push(dLong.ms);
      samples.dDeltas.push(dDeltas.ms);
      samples.firstEvent.push(dShort.firstEventMs);
      samples.commitsShort.push(dShort.commits);
      samples.commitsLong.push(dLong.commits);
      loggedDeltaEvents = dDeltas.events;
    }
    const m = Object.fromEntries(Object.entries(samples).map(([key, values]) => [key, median(values)])) as Record<
      keyof typeof samples,
      number
    >;
    const perStepIn = (m.inLong - m.inShort) / (STEPS_LONG - 1);
    const perStepDurable = (m.dLong - m.dShort) / (STEPS_LONG - 1);
    const commitsPerStep = (m.commitsLong - m.commitsShort) / (STEPS_LONG - 1);
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
      `  commits per step (slope)    durable ${commitsPerStep.toFixed(1)} writing transactions (1-step turn: ${m.commitsShort}, ${STEPS_LONG}-step turn: ${m.commitsLong})`,
    );
    console.log(
      `  first event after start     durable ${fmt(m.firstEvent).padStart(10)}   (1-step turns, idle worker)`,
    );
    console.log(
      `  ${DELTAS.toLocaleString("en-US")}-delta response      in-process ${fmt(m.inDeltas).padStart(10)}   durable ${fmt(m.dDeltas).padStart(10)}   ratio ${(m.dDeltas / m.inDeltas).toFixed(1)}x`,
    );
    console.log(
      `  event log: ${loggedDeltaEvents.toLocaleString("en-US")} events logged at ${Math.round(loggedDeltaEvents / (m.dDeltas / 1000)).toLocaleString("en-US")} events/s (start of the turn to a complete log)`,
    );
  } finally {
    await db.end().catch(() => {});
    await worker?.shutdown();
    await postgres.stop();
  }
}
