import type { ContenderId } from "./contenders.js";
import { canCollectGarbage, collectGarbage, median } from "./harness.js";
import { runW0Floor } from "./w0-floor.js";
import { runW1 } from "./w1-streaming.js";
import { w1Response } from "./w1-streaming-script.js";
import { runW2, w2Responses } from "./w2-long-run.js";

/** The heap figures of one contender on one W3 measurement. */
export interface MemoryMeasurement {
  workload: "W3-peak-W1" | "W3-after-W2";
  contender: ContenderId;
  /** Megabytes (2^20 bytes) above the baseline, one per round. */
  samplesMb: number[];
  medianMb: number;
}

/** Which contenders W3 measures, and how often. */
export interface MemoryPlan {
  peakContenders: readonly ContenderId[];
  retainedContenders: readonly ContenderId[];
  rounds: number;
  /** Steps of the W2 run whose retained heap is measured. */
  w2Steps: number;
}

const MB = 1024 * 1024;

function heapUsed(): number {
  return process.memoryUsage().heapUsed;
}

/**
 * Peak heap during one W1 run, above the heap after a full GC just
 * before it. `process.memoryUsage().heapUsed` is sampled by the scripted
 * stream before each chunk of 1,000 events (201 samples, each after the
 * consumer drained the previous chunk) and once after the run. It counts
 * garbage not yet collected as well as live objects, as a process's real
 * peak does; the W1 script itself is built before the baseline.
 */
async function peakDuringW1(contender: ContenderId): Promise<number> {
  w1Response();
  collectGarbage();
  const baseline = heapUsed();
  let peak = baseline;
  const sample = () => {
    const used = heapUsed();
    if (used > peak) peak = used;
  };
  if (contender === "floor") await runW0Floor();
  else await runW1(contender, sample);
  sample();
  return (peak - baseline) / MB;
}

/**
 * Heap still held after one W2 run, after a full GC, above the heap after
 * a full GC before it, while the Agent (or the runner's outcome) is kept
 * alive: the transcript an Agent holds, or what a finished turn leaks.
 * Pre-built responses are allocated before the baseline and not counted.
 */
async function retainedAfterW2(contender: Exclude<ContenderId, "floor">, steps: number): Promise<number> {
  w2Responses(steps);
  collectGarbage();
  const baseline = heapUsed();
  const result = await runW2(contender, steps);
  collectGarbage();
  const retained = heapUsed() - baseline;
  // Keeps the agent reachable until the heap was read.
  if (result.retained === undefined) throw new Error("W3: nothing retained");
  return retained / MB;
}

/**
 * W3 memory: peak heap during W1 and retained heap after W2, each
 * contender in turn per round (alternating), median over rounds. Needs
 * `--expose-gc`; without it returns nothing.
 */
export async function measureMemory(plan: MemoryPlan): Promise<MemoryMeasurement[]> {
  if (!canCollectGarbage) return [];
  const peak = new Map<ContenderId, number[]>(plan.peakContenders.map((id) => [id, []]));
  const retained = new Map<ContenderId, number[]>(plan.retainedContenders.map((id) => [id, []]));
  for (let round = 0; round < plan.rounds; round++) {
    for (let offset = 0; offset < plan.peakContenders.length; offset++) {
      const contender = plan.peakContenders[(round + offset) % plan.peakContenders.length]!;
      peak.get(contender)!.push(await peakDuringW1(contender));
    }
    for (let offset = 0; offset < plan.retainedContenders.length; offset++) {
      const contender = plan.retainedContenders[(round + offset) % plan.retainedContenders.length]!;
      if (contender === "floor") continue;
      retained.get(contender)!.push(await retainedAfterW2(contender, plan.w2Steps));
    }
  }
  const rows = (workload: MemoryMeasurement["workload"], samples: Map<ContenderId, number[]>): MemoryMeasurement[] =>
    [...samples].filter(([, values]) => values.length > 0).map(([contender, samplesMb]) => ({ workload, contender, samplesMb, medianMb: median(samplesMb) }));
  return [...rows("W3-peak-W1", peak), ...rows("W3-after-W2", retained)];
}
