import type { ContenderId } from "./contenders.js";
import { canCollectGarbage, collectGarbage, collectYoungGarbage, median } from "./harness.js";
import { EVENTS_PER_CHUNK, type ChunkObserver } from "./scripted-stream.js";
import { runW0Floor } from "./w0-floor.js";
import { runW1 } from "./w1-streaming.js";
import { W1_DELTA_COUNT, w1Response } from "./w1-streaming-script.js";
import { runW2, w2Responses } from "./w2-long-run.js";

/** The three heap figures of W3. */
export type MemoryWorkload = "W3-peak-W1" | "W3-live-W1" | "W3-after-W2";

/** The heap figures of one contender on one W3 measurement. */
export interface MemoryMeasurement {
  workload: MemoryWorkload;
  contender: ContenderId;
  /** Megabytes (2^20 bytes) above the baseline, one per round. */
  samplesMb: number[];
  medianMb: number;
}

/** Which contenders W3 measures, and how often. */
export interface MemoryPlan {
  w1Contenders: readonly ContenderId[];
  w2Contenders: readonly ContenderId[];
  /** Rounds of the peak measurement; the live and retained ones get half (at least one). */
  rounds: number;
  /** Steps of the W2 run whose retained heap is measured. */
  w2Steps: number;
}

const MB = 1024 * 1024;

/** Chunks between two forced GCs of the live-heap measurement: 10 samples per W1 run. */
const CHUNKS_PER_LIVE_SAMPLE = 20;

function heapUsed(): number {
  return process.memoryUsage().heapUsed;
}

async function runW1With(contender: ContenderId, onChunk: ChunkObserver): Promise<void> {
  if (contender === "floor") await runW0Floor(onChunk);
  else await runW1(contender, onChunk);
}

/**
 * Peak heap during one W1 run, above the heap after a full GC just before
 * it. `process.memoryUsage().heapUsed` is sampled by the scripted stream
 * before each chunk of 1,000 events (201 samples, each after the consumer
 * drained the previous chunk), and each sample is followed by a scavenge.
 * A sample is thus what is live plus what one chunk allocated, garbage
 * included, as a process's real peak is; the scavenge keeps the young
 * generation from filling up across chunks. Without it every contender
 * peaked at the young generation's size (~14 MB, V8's choice, not the
 * loop's), and one that allocates less per chunk sampled closer to that
 * ceiling and looked worse.
 */
async function peakDuringW1(contender: ContenderId): Promise<number> {
  collectGarbage();
  const baseline = heapUsed();
  let peak = baseline;
  const sample = () => {
    peak = Math.max(peak, heapUsed());
    collectYoungGarbage();
  };
  await runW1With(contender, sample);
  peak = Math.max(peak, heapUsed());
  return (peak - baseline) / MB;
}

/**
 * Peak live heap during one W1 run: every 20,000 events, a full GC, then
 * `heapUsed` above the baseline. Shows what a contender holds while it
 * streams (a loop that kept every delta would grow here), not its garbage.
 */
async function liveDuringW1(contender: ContenderId): Promise<number> {
  collectGarbage();
  const baseline = heapUsed();
  let peak = baseline;
  let chunks = 0;
  await runW1With(contender, () => {
    if (++chunks % CHUNKS_PER_LIVE_SAMPLE !== 0) return;
    collectGarbage();
    peak = Math.max(peak, heapUsed());
  });
  return (peak - baseline) / MB;
}

/**
 * Heap still held after one W2 run, after a full GC, above the heap after
 * a full GC before it, while the Agent (or the runner's outcome) is kept
 * alive: the transcript an Agent holds, or what a finished turn leaks.
 * Pre-built responses are allocated before the baseline and not counted.
 */
async function retainedAfterW2(contender: Exclude<ContenderId, "floor">, steps: number): Promise<number> {
  collectGarbage();
  collectGarbage();
  const baseline = heapUsed();
  const result = await runW2(contender, steps);
  collectGarbage();
  collectGarbage();
  const retained = heapUsed() - baseline;
  // Keeps the agent reachable until the heap was read.
  if (result.retained === undefined) throw new Error("W3: nothing retained");
  return retained / MB;
}

async function alternate(
  contenders: readonly ContenderId[],
  rounds: number,
  measure: (contender: ContenderId) => Promise<number>,
): Promise<Map<ContenderId, number[]>> {
  const samples = new Map<ContenderId, number[]>(contenders.map((id) => [id, []]));
  for (let round = 0; round < rounds; round++) {
    for (let offset = 0; offset < contenders.length; offset++) {
      const contender = contenders[(round + offset) % contenders.length]!;
      samples.get(contender)!.push(await measure(contender));
    }
  }
  return samples;
}

/**
 * W3 memory: peak and live heap during W1, retained heap after W2; each
 * contender in turn per round (alternating), median over rounds. Needs
 * `--expose-gc`; without it returns nothing.
 */
export async function measureMemory(plan: MemoryPlan): Promise<MemoryMeasurement[]> {
  if (!canCollectGarbage) return [];
  w1Response();
  w2Responses(plan.w2Steps);
  const fewer = Math.max(1, Math.floor(plan.rounds / 2));
  const agents = plan.w2Contenders.filter((id): id is Exclude<ContenderId, "floor"> => id !== "floor");
  const measured: [MemoryWorkload, Map<ContenderId, number[]>][] = [
    ["W3-peak-W1", await alternate(plan.w1Contenders, plan.rounds, peakDuringW1)],
    ["W3-live-W1", await alternate(plan.w1Contenders, fewer, liveDuringW1)],
    [
      "W3-after-W2",
      await alternate(agents, fewer, (id) => retainedAfterW2(id as Exclude<ContenderId, "floor">, plan.w2Steps)),
    ],
  ];
  return measured.flatMap(([workload, samples]) =>
    [...samples]
      .filter(([, values]) => values.length > 0)
      .map(([contender, samplesMb]) => ({ workload, contender, samplesMb, medianMb: median(samplesMb) })),
  );
}

/** How W3 samples, for the table legend. */
export const MEMORY_METHOD = `heapUsed sampled every ${EVENTS_PER_CHUNK.toLocaleString("en")} of W1's ${W1_DELTA_COUNT.toLocaleString("en")} events, each sample followed by a scavenge (peak), after a full GC every ${(CHUNKS_PER_LIVE_SAMPLE * EVENTS_PER_CHUNK).toLocaleString("en")} events (live), after a full GC once W2 ended (retained)`;
