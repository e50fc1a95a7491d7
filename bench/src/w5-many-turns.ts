import { setTimeout as sleep } from "node:timers/promises";
import {
  TOOL_NAME,
  newBenchRunner,
  runContender,
  runTurnRunner,
  type AgentRunInput,
  type AgentRunResult,
  type ContenderId,
} from "./contenders.js";
import { collectGarbage, median } from "./harness.js";
import { assertCompleteRun } from "./run-check.js";
import { scriptedStreamFn, textResponse, toolCallResponse, type ScriptedResponse } from "./scripted-stream.js";
import type { StreamFn } from "@turnkit/agent-loop";
import type { TimedWorkload } from "./workload.js";

/** Turns started at once in a timed W5 run. */
export const W5_TURNS = 2_000;

/** The smaller run the heap per turn is compared with, to show it stays flat. */
export const W5_SMALL_TURNS = 200;

/** How long every tool call waits. */
export const W5_TOOL_WAIT_MS = 5;

/** Text deltas of each session's final answer. */
export const W5_ANSWER_DELTAS = 50;

/** Who runs W5: pi-agent-core's bare Agent (one per session), our Agent (one per session), one PiTurnRunner for every session. */
export const W5_CONTENDERS: readonly Exclude<ContenderId, "floor">[] = ["pi", "ours", "runner"];

let script: ScriptedResponse[] | undefined;

/** The three responses of a session, built once and shared by every session. */
function responses(): ScriptedResponse[] {
  script ??= [
    toolCallResponse(0, 2, TOOL_NAME),
    toolCallResponse(1, 1, TOOL_NAME),
    textResponse(W5_ANSWER_DELTAS, "w"),
  ];
  return script;
}

/** user, 2-call response, 2 results, 1-call response, 1 result, answer. */
const EXPECTED = { messageCount: 7, finalTextLength: W5_ANSWER_DELTAS };

const wait = () => sleep(W5_TOOL_WAIT_MS).then(() => undefined);

/** A session's stream function; with `probe`, each request's context and signal are shown to it. */
function sessionStreamFn(probe: ((object: object) => void) | undefined): StreamFn {
  const streamFn = scriptedStreamFn(responses());
  if (!probe) return streamFn;
  return (model, context, options) => {
    probe(context);
    if (options?.signal) probe(options.signal);
    return streamFn(model, context, options);
  };
}

/**
 * Starts `turns` sessions at once and waits for all of them: for the
 * runner, `turns` `runTurn` calls on one `PiTurnRunner`; for the Agents,
 * one Agent per session. Each session: two parallel tool calls that each
 * wait 5 ms, one tool call, then a 50-delta answer. `onToolCall`, when
 * given, is called as each tool call starts, before its wait.
 */
export function runManyTurns(
  contender: Exclude<ContenderId, "floor">,
  turns: number,
  options: { verify?: boolean; probe?: (object: object) => void; onToolCall?: () => void } = {},
): Promise<AgentRunResult[]> {
  const runner = contender === "runner" ? newBenchRunner() : undefined;
  const runs: Promise<AgentRunResult>[] = [];
  const { onToolCall } = options;
  const tool = onToolCall
    ? () => {
        onToolCall();
        return wait();
      }
    : wait;
  for (let index = 0; index < turns; index++) {
    const input: AgentRunInput = {
      prompt: "session",
      streamFn: sessionStreamFn(options.probe),
      tool,
      ids: { sessionId: `session-${index}`, turnId: `turn-${index}` },
      probe: options.probe,
    };
    runs.push(
      runner ? runTurnRunner(input, undefined, options.verify, runner) : runContender(contender, input, options.verify),
    );
  }
  return Promise.all(runs);
}

async function verifyManyTurns(contender: Exclude<ContenderId, "floor">, turns: number): Promise<void> {
  const results = await runManyTurns(contender, turns, { verify: true });
  for (const result of results) assertCompleteRun("W5", contender, result, EXPECTED);
}

function agentContender(contender: ContenderId): Exclude<ContenderId, "floor"> {
  if (contender === "floor") throw new Error("W5 has no floor");
  return contender;
}

/**
 * W5, many turns at once: 2,000 sessions started together, timed until the
 * last one ends. turns/s is 2,000 over the median; as a ratio to pi's bare
 * Agent it is the inverse of the time ratio.
 */
export const W5: TimedWorkload = {
  id: "W5",
  description: `${W5_TURNS.toLocaleString("en")} turns at once (2 parallel calls of ${W5_TOOL_WAIT_MS} ms, 1 call, a ${W5_ANSWER_DELTAS}-delta answer)`,
  contenders: W5_CONTENDERS,
  // Nine rounds: with five, the time ratio moved between 1.56 and 2.36 from one quiet run to the next.
  plan: { warmup: 1, rounds: 9 },
  prepare: () => void responses(),
  verify: (contender) => verifyManyTurns(agentContender(contender), W5_TURNS),
  run: (contender) => runManyTurns(agentContender(contender), W5_TURNS),
};

/** The heap figures of one contender running `turns` sessions at once. */
export interface ManyTurnsHeap {
  contender: ContenderId;
  turns: number;
  /** Highest live heap during the run (full GC before each sample) above the heap before it, per turn, in kB (1,024 bytes). */
  peakKbPerTurn: number;
  /** Heap after the run and a full GC, results dropped, above the heap before it, per turn, in kB. */
  retainedKbPerTurn: number;
  /** Per-turn objects shown to the probe (Agents; the runner's input, writer, request contexts and signals). */
  probed: number;
  /** Of those, how many were still reachable after the run and a full GC: anything above 0 outlives its turn. */
  stillReachable: number;
  /** The constructors of those still reachable, counted (`2 AbortSignal, 1 Object`); empty when none is. */
  stillReachableKinds: string;
}

const KB = 1024;

/** Macrotask-and-full-GC cycles after a W5 heap run before an object still reachable counts as kept. */
const COLLECT_CYCLES = 5;

/** How often the heap is sampled during a W5 heap run; each sample is a full GC first. */
const SAMPLE_EVERY_MS = 2;

/**
 * Tool calls started (as multiples of the turns) at which a heap run also
 * samples, from inside the call: when the last session starts its first
 * pair of calls, and its third call. A 200-turn run lasts a few timer
 * samples, which may all miss the turns' fullest moment; these two
 * samples land on the same moments in every run, whatever its size.
 */
const SAMPLE_AT_CALLS_PER_TURN = [2, 3];

/** What the objects still behind `refs` are, by constructor name, for a report that says what outlived its turn. */
function kindsOf(refs: readonly WeakRef<object>[]): string {
  const counts = new Map<string, number>();
  for (const ref of refs) {
    const object = ref.deref();
    if (object === undefined) continue;
    const kind = object.constructor?.name || "(no constructor)";
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts].map(([kind, count]) => `${count} ${kind}`).join(", ");
}

/**
 * One heap run of `turns` sessions (not timed: a full GC precedes every
 * sample). Each per-turn object the contender creates is held by a
 * `WeakRef`; after the run, with its results dropped and a full GC, every
 * one must be gone.
 */
async function measureManyTurnsHeap(contender: Exclude<ContenderId, "floor">, turns: number): Promise<ManyTurnsHeap> {
  const refs: WeakRef<object>[] = [];
  collectGarbage();
  const baseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  const sample = () => {
    collectGarbage();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  };
  const sampler = setInterval(sample, SAMPLE_EVERY_MS);
  const sampleAt = new Set(SAMPLE_AT_CALLS_PER_TURN.map((perTurn) => perTurn * turns));
  let calls = 0;
  let results: AgentRunResult[] | undefined = await runManyTurns(contender, turns, {
    probe: (object) => refs.push(new WeakRef(object)),
    onToolCall: () => {
      if (sampleAt.has(++calls)) sample();
    },
  });
  clearInterval(sampler);
  // The timed runs' first run checked the transcripts; here only the outcome is known (the writer keeps nothing).
  const incomplete = results.filter((result) => result.outcome !== "completed").length;
  if (incomplete > 0) throw new Error(`W5 ${contender}: ${incomplete} of ${turns} turns did not complete`);
  results = undefined;
  // WeakRefs read in a job keep their target until the job ends, and the last turns' promise reactions may
  // still be queued: collect in later macrotasks, up to five times, until nothing is left (a leak stays).
  let stillReachable = refs.length;
  for (let cycle = 0; cycle < COLLECT_CYCLES && stillReachable > 0; cycle++) {
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    stillReachable = refs.filter((ref) => ref.deref() !== undefined).length;
  }
  const retained = process.memoryUsage().heapUsed - baseline;
  return {
    contender,
    turns,
    peakKbPerTurn: (peak - baseline) / KB / turns,
    retainedKbPerTurn: retained / KB / turns,
    probed: refs.length,
    stillReachable,
    stillReachableKinds: stillReachable === 0 ? "" : kindsOf(refs),
  };
}

/**
 * The W5 heap figures: each contender at 200 and at 2,000 turns, `rounds`
 * times (the median per figure; reachable objects: the most seen in any
 * round). Needs `--expose-gc`; without it, nothing is measured.
 */
export async function measureManyTurnsMemory(
  contenders: readonly ContenderId[],
  rounds: number,
): Promise<ManyTurnsHeap[]> {
  const figures: ManyTurnsHeap[] = [];
  for (const turns of [W5_SMALL_TURNS, W5_TURNS]) {
    for (const contender of contenders) {
      const samples: ManyTurnsHeap[] = [];
      for (let round = 0; round < rounds; round++)
        samples.push(await measureManyTurnsHeap(agentContender(contender), turns));
      figures.push({
        contender,
        turns,
        peakKbPerTurn: median(samples.map((sample) => sample.peakKbPerTurn)),
        retainedKbPerTurn: median(samples.map((sample) => sample.retainedKbPerTurn)),
        probed: samples[0]!.probed,
        stillReachable: Math.max(...samples.map((sample) => sample.stillReachable)),
        stillReachableKinds: samples.reduce((worst, sample) =>
          sample.stillReachable > worst.stillReachable ? sample : worst,
        ).stillReachableKinds,
      });
    }
  }
  return figures;
}
