import type { ContenderId } from "./contenders.js";
import type { TimedWorkload } from "./workload.js";

/** How many untimed and timed runs each contender gets. */
export interface RoundPlan {
  warmup: number;
  rounds: number;
}

/** The samples of one contender on one workload. */
export interface Measurement {
  workload: string;
  contender: ContenderId;
  /** Wall-clock milliseconds of each timed run, in run order. */
  samplesMs: number[];
  medianMs: number;
}

const gc: (() => void) | undefined = (globalThis as { gc?: () => void }).gc;

/** True when the process runs with `--expose-gc`; without it W3 is skipped and timings are noisier. */
export const canCollectGarbage = typeof gc === "function";

/** A full, synchronous garbage collection (twice, so finalised objects go too); a no-op without `--expose-gc`. */
export function collectGarbage(): void {
  gc?.();
  gc?.();
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
 * A full GC precedes every run and is not timed. Runs never overlap.
 */
export async function timeAlternating(workload: TimedWorkload, contenders: readonly ContenderId[], plan: RoundPlan): Promise<Measurement[]> {
  for (let round = 0; round < Math.max(1, plan.warmup); round++) {
    for (const contender of contenders) {
      collectGarbage();
      await (round === 0 ? workload.verify(contender) : workload.run(contender));
    }
  }
  const samples = new Map<ContenderId, number[]>(contenders.map((contender) => [contender, []]));
  for (let round = 0; round < plan.rounds; round++) {
    for (let offset = 0; offset < contenders.length; offset++) {
      const contender = contenders[(round + offset) % contenders.length]!;
      collectGarbage();
      const started = performance.now();
      await workload.run(contender);
      samples.get(contender)!.push(performance.now() - started);
    }
  }
  return contenders.map((contender) => {
    const samplesMs = samples.get(contender)!;
    return { workload: workload.rowId?.(contender) ?? workload.id, contender, samplesMs, medianMs: median(samplesMs) };
  });
}
