import type { ContenderId } from "./contenders.js";
import type { RoundPlan, TimedWorkload } from "./workload.js";

/** The samples of one contender on one workload. */
export interface Measurement {
  workload: string;
  contender: ContenderId;
  /** Wall-clock milliseconds of each timed run, in run order. */
  samplesMs: number[];
  medianMs: number;
  /** CPU milliseconds (user + system, all threads) of each timed run: less sensitive to other processes. */
  cpuSamplesMs: number[];
  cpuMedianMs: number;
}

const gc: ((options?: { type: "major" | "minor" }) => void) | undefined = (globalThis as { gc?: () => void }).gc;

/** True when the process runs with `--expose-gc`; without it W3 is skipped. */
export const canCollectGarbage = typeof gc === "function";

/** A full, synchronous garbage collection; a no-op without `--expose-gc`. */
export function collectGarbage(): void {
  gc?.();
}

/** A young-generation collection (scavenge) only; a no-op without `--expose-gc`. */
export function collectYoungGarbage(): void {
  gc?.({ type: "minor" });
}

/** The median; the mean of the two middle samples for an even count. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Times `workload` for each of `contenders`: `plan.warmup` untimed runs
 * each (the first one is the workload's `verify`, which throws when a
 * contender did not do the whole work), then `plan.rounds` timed runs each.
 * Runs alternate: round r runs the contenders rotated by r, so none always
 * follows the same one (heap, JIT and CPU-frequency drift are shared out).
 * Runs never overlap.
 *
 * No full GC is forced, neither before the timed rounds nor before each
 * run: a forced full GC shrinks V8's heap, and the runs after it pay to
 * grow it again. One forced GC before the timed rounds made their first
 * two or three runs 2–8× the later ones for every contender (W2-300 runner
 * 200 and 75 ms CPU, then about 10 ms; W2-1200 runner 365, 164, then about
 * 55), so a workload's median measured V8's heap resizing as much as the
 * loop, the more so the fewer its rounds. Garbage a run leaves is
 * collected during later runs, spread over all contenders by the rotation.
 */
export async function timeAlternating(
  workload: TimedWorkload,
  contenders: readonly ContenderId[],
  plan: RoundPlan,
): Promise<Measurement[]> {
  workload.prepare?.();
  for (let round = 0; round < Math.max(1, plan.warmup); round++) {
    for (const contender of contenders) await (round === 0 ? workload.verify(contender) : workload.run(contender));
  }
  const samples = new Map<ContenderId, number[]>(contenders.map((contender) => [contender, []]));
  const cpuSamples = new Map<ContenderId, number[]>(contenders.map((contender) => [contender, []]));
  for (let round = 0; round < plan.rounds; round++) {
    for (let offset = 0; offset < contenders.length; offset++) {
      const contender = contenders[(round + offset) % contenders.length]!;
      const cpuStarted = process.cpuUsage();
      const started = performance.now();
      await workload.run(contender);
      samples.get(contender)!.push(performance.now() - started);
      const cpu = process.cpuUsage(cpuStarted);
      cpuSamples.get(contender)!.push((cpu.user + cpu.system) / 1000);
    }
  }
  return contenders.map((contender) => {
    const samplesMs = samples.get(contender)!;
    const cpuSamplesMs = cpuSamples.get(contender)!;
    return {
      workload: workload.rowId?.(contender) ?? workload.id,
      contender,
      samplesMs,
      medianMs: median(samplesMs),
      cpuSamplesMs,
      cpuMedianMs: median(cpuSamplesMs),
    };
  });
}
