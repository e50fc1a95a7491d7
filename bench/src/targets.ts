import type { ContenderId } from "./contenders.js";
import type { Measurement } from "./harness.js";
import type { MemoryMeasurement } from "./w3-memory.js";

/** A target's ratio from one kind of figure, and whether it holds. */
export interface TargetVerdict {
  value: number;
  pass: boolean;
}

/** One target of issue 7, evaluated on figures from the same run. */
export interface TargetResult {
  /** What is compared, e.g. `W1 our Agent / pi Agent`. */
  name: string;
  /** The largest ratio that passes. */
  limit: number;
  /** On wall-clock medians (heap medians for W3): the figure the issue asks for. */
  wall: TargetVerdict;
  /** On CPU-time medians; `null` for heap targets. Trust it over `wall` on a loaded machine. */
  cpu: TargetVerdict | null;
}

type Figure = (workload: string, contender: ContenderId) => number | undefined;

/**
 * The targets of issue 7. A target whose figures were not measured (a
 * partial run with `--only` or `--impl`) is left out, never failed.
 */
export function evaluateTargets(timings: readonly Measurement[], heap: readonly MemoryMeasurement[]): TargetResult[] {
  const find = (workload: string, contender: ContenderId) => timings.find((m) => m.workload === workload && m.contender === contender);
  const wall: Figure = (workload, contender) => find(workload, contender)?.medianMs;
  const cpu: Figure = (workload, contender) => find(workload, contender)?.cpuMedianMs;
  const heapMb: Figure = (workload, contender) => heap.find((m) => m.workload === workload && m.contender === contender)?.medianMb;

  const verdict = (figure: Figure, over: [string, ContenderId], under: [string, ContenderId], limit: number): TargetVerdict | undefined => {
    const numerator = figure(...over);
    const denominator = figure(...under);
    if (numerator === undefined || denominator === undefined || denominator <= 0) return undefined;
    const value = numerator / denominator;
    return { value, pass: value <= limit };
  };
  const results: TargetResult[] = [];
  const timed = (name: string, over: [string, ContenderId], under: [string, ContenderId], limit: number) => {
    const onWall = verdict(wall, over, under, limit);
    if (onWall) results.push({ name, limit, wall: onWall, cpu: verdict(cpu, over, under, limit) ?? null });
  };

  timed("W1 our Agent / pi Agent", ["W1", "ours"], ["W1", "pi"], 0.8);
  timed("W2-300 our Agent / pi Agent", ["W2-300", "ours"], ["W2-300", "pi"], 0.8);
  timed("W2-1200 our Agent / pi Agent", ["W2-1200", "ours"], ["W2-1200", "pi"], 0.8);
  timed("W1 PiTurnRunner / pi Agent", ["W1", "runner"], ["W1", "pi"], 1.5);
  timed("W1 our Agent / floor (W0)", ["W1", "ours"], ["W0", "floor"], 3);
  timed("W2 our Agent 1200 / 300 steps", ["W2-1200", "ours"], ["W2-300", "ours"], 20);
  timed("W2 PiTurnRunner 1200 / 300 steps", ["W2-1200", "runner"], ["W2-300", "runner"], 20);
  const onHeap = verdict(heapMb, ["W3-peak-W1", "ours"], ["W3-peak-W1", "pi"], 1);
  if (onHeap) results.push({ name: "W3 peak heap in W1, our Agent / pi Agent", limit: 1, wall: onHeap, cpu: null });
  return results;
}
