import type { ContenderId } from "./contenders.js";
import type { Measurement } from "./harness.js";
import type { MemoryMeasurement } from "./w3-memory.js";

/** One target of issue 7, evaluated on figures from the same run. */
export interface TargetResult {
  /** What is compared, e.g. `W1 our Agent / pi Agent`. */
  name: string;
  value: number;
  /** The largest value that passes. */
  limit: number;
  pass: boolean;
}

function timing(measurements: readonly Measurement[], workload: string, contender: ContenderId): number | undefined {
  return measurements.find((m) => m.workload === workload && m.contender === contender)?.medianMs;
}

function memory(measurements: readonly MemoryMeasurement[], workload: MemoryMeasurement["workload"], contender: ContenderId): number | undefined {
  return measurements.find((m) => m.workload === workload && m.contender === contender)?.medianMb;
}

/**
 * The targets of issue 7. A target whose figures were not measured (a
 * partial run with `--only` or `--impl`) is left out, never failed.
 */
export function evaluateTargets(timings: readonly Measurement[], heap: readonly MemoryMeasurement[]): TargetResult[] {
  const results: TargetResult[] = [];
  const ratio = (name: string, numerator: number | undefined, denominator: number | undefined, limit: number) => {
    if (numerator === undefined || denominator === undefined || denominator <= 0) return;
    const value = numerator / denominator;
    results.push({ name, value, limit, pass: value <= limit });
  };
  ratio("W1 our Agent / pi Agent", timing(timings, "W1", "ours"), timing(timings, "W1", "pi"), 0.8);
  ratio("W2-300 our Agent / pi Agent", timing(timings, "W2-300", "ours"), timing(timings, "W2-300", "pi"), 0.8);
  ratio("W2-1200 our Agent / pi Agent", timing(timings, "W2-1200", "ours"), timing(timings, "W2-1200", "pi"), 0.8);
  ratio("W1 PiTurnRunner / pi Agent", timing(timings, "W1", "runner"), timing(timings, "W1", "pi"), 1.5);
  ratio("W1 our Agent / floor (W0)", timing(timings, "W1", "ours"), timing(timings, "W0", "floor"), 3);
  ratio("W2 our Agent 1200 / 300 steps", timing(timings, "W2-1200", "ours"), timing(timings, "W2-300", "ours"), 20);
  ratio("W2 PiTurnRunner 1200 / 300 steps", timing(timings, "W2-1200", "runner"), timing(timings, "W2-300", "runner"), 20);
  ratio("W3 peak heap in W1, our Agent / pi Agent", memory(heap, "W3-peak-W1", "ours"), memory(heap, "W3-peak-W1", "pi"), 1);
  return results;
}
