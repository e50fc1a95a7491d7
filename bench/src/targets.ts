import type { ContenderId } from "./contenders.js";
import type { Measurement } from "./harness.js";
import type { MemoryMeasurement } from "./w3-memory.js";
import { W5_SMALL_TURNS, W5_TURNS, type ManyTurnsHeap } from "./w5-many-turns.js";

/** A target's ratio from one kind of figure, and whether it holds. */
export interface TargetVerdict {
  value: number;
  pass: boolean;
}

/** One target, evaluated on figures from the same run. */
export interface TargetResult {
  /** What is compared, e.g. `W1 our Agent / pi Agent`. */
  name: string;
  /** The largest ratio that passes. */
  limit: number;
  /** On wall-clock medians (heap medians for W3 and W5's heap): the figure the target names. */
  wall: TargetVerdict;
  /** On CPU-time medians; `null` for heap targets. Trust it over `wall` on a loaded machine. */
  cpu: TargetVerdict | null;
}

type Figure = (workload: string, contender: ContenderId) => number | undefined;

/**
 * The targets (see the README's table). A target whose figures were not
 * measured (a partial run with `--only` or `--impl`) is left out, never
 * failed.
 */
export function evaluateTargets(
  timings: readonly Measurement[],
  heap: readonly MemoryMeasurement[],
  manyTurns: readonly ManyTurnsHeap[] = [],
): TargetResult[] {
  const find = (workload: string, contender: ContenderId) =>
    timings.find((m) => m.workload === workload && m.contender === contender);
  const wall: Figure = (workload, contender) => find(workload, contender)?.medianMs;
  const cpu: Figure = (workload, contender) => find(workload, contender)?.cpuMedianMs;
  const heapMb: Figure = (workload, contender) =>
    heap.find((m) => m.workload === workload && m.contender === contender)?.medianMb;

  const verdict = (
    figure: Figure,
    over: [string, ContenderId],
    under: [string, ContenderId],
    limit: number,
  ): TargetVerdict | undefined => {
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

  timed("W1 our Agent / pi Agent", ["W1", "ours"], ["W1", "pi"], 1);
  for (const variant of ["W2-300", "W2-1200", "W2-300-json", "W2-1200-json"]) {
    timed(`${variant} our Agent / pi Agent`, [variant, "ours"], [variant, "pi"], 1);
  }
  timed("W1 PiTurnRunner / pi Agent", ["W1", "runner"], ["W1", "pi"], 1.5);
  timed("W2-300 PiTurnRunner / pi Agent", ["W2-300", "runner"], ["W2-300", "pi"], 1.5);
  timed("W2-1200 PiTurnRunner / pi Agent", ["W2-1200", "runner"], ["W2-1200", "pi"], 1.5);
  timed("W1 our Agent / floor (W0)", ["W1", "ours"], ["W0", "floor"], 3);
  timed("W2 our Agent 1200 / 300 steps", ["W2-1200", "ours"], ["W2-300", "ours"], 20);
  timed("W2 PiTurnRunner 1200 / 300 steps", ["W2-1200", "runner"], ["W2-300", "runner"], 5);
  const onHeap = verdict(heapMb, ["W3-peak-W1", "ours"], ["W3-peak-W1", "pi"], 1);
  if (onHeap) results.push({ name: "W3 peak heap in W1, our Agent / pi Agent", limit: 1, wall: onHeap, cpu: null });
  // Turns per second as a ratio to pi is the inverse of the time ratio.
  timed("W5 time per turn, PiTurnRunner / pi Agent", ["W5", "runner"], ["W5", "pi"], 1.5);
  results.push(...manyTurnsTargets(manyTurns));
  return results;
}

/** W5's heap targets: per turn against pi's Agent, flat from 200 to 2,000 turns, nothing reachable after the run. */
function manyTurnsTargets(manyTurns: readonly ManyTurnsHeap[]): TargetResult[] {
  const find = (contender: ContenderId, turns: number) =>
    manyTurns.find((m) => m.contender === contender && m.turns === turns);
  const results: TargetResult[] = [];
  const ratio = (name: string, over: ManyTurnsHeap | undefined, under: ManyTurnsHeap | undefined, limit: number) => {
    if (!over || !under || under.peakKbPerTurn <= 0) return;
    const value = over.peakKbPerTurn / under.peakKbPerTurn;
    results.push({ name, limit, wall: { value, pass: value <= limit }, cpu: null });
  };
  ratio("W5 peak heap per turn, PiTurnRunner / pi Agent", find("runner", W5_TURNS), find("pi", W5_TURNS), 1.5);
  ratio(
    `W5 runner heap per turn, ${W5_TURNS} / ${W5_SMALL_TURNS} turns`,
    find("runner", W5_TURNS),
    find("runner", W5_SMALL_TURNS),
    1.25,
  );
  for (const figure of manyTurns) {
    if (figure.contender !== "runner") continue;
    const value = figure.stillReachable / Math.max(1, figure.probed);
    results.push({
      name: `W5 runner objects reachable after ${figure.turns} turns`,
      limit: 0,
      wall: { value, pass: value <= 0 },
      cpu: null,
    });
  }
  return results;
}
