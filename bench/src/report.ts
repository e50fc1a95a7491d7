import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname } from "node:path";
import { CONTENDER_LABELS, type ContenderId } from "./contenders.js";
import type { Measurement } from "./harness.js";
import { EVENTS_PER_CHUNK } from "./scripted-stream.js";
import type { TargetResult } from "./targets.js";
import type { MemoryMeasurement } from "./w3-memory.js";
import { W5_TURNS, type ManyTurnsHeap } from "./w5-many-turns.js";

/** Everything one run of the suite measured. */
export interface SuiteResults {
  timings: Measurement[];
  memory: MemoryMeasurement[];
  /** W5's heap figures per contender and number of turns. */
  manyTurns: ManyTurnsHeap[];
  targets: TargetResult[];
  totalSeconds: number;
  /** CPU time of the whole process (user + system). */
  cpuSeconds: number;
  /** `os.loadavg()` when the suite started and ended: above the CPU count, wall times are not trustworthy. */
  loadAverage: { start: number[]; end: number[] };
  /** The command line that produced the figures. */
  command: string;
  /** Whether our packages ran from their `dist/` builds (what `pnpm bench` measures) or from source through tsx. */
  measuredCode: "build" | "source";
}

/** The floor row a workload's rows are divided by: W0 for W1, the workload's own floor otherwise. */
function floorOf(timings: readonly Measurement[], workload: string): number | undefined {
  const floorWorkload = workload === "W1" ? "W0" : workload;
  return timings.find((m) => m.workload === floorWorkload && m.contender === "floor")?.medianMs;
}

function piOf(timings: readonly Measurement[], workload: string): number | undefined {
  return timings.find((m) => m.workload === workload && m.contender === "pi")?.medianMs;
}

function ratio(value: number, reference: number | undefined): number | null {
  return reference === undefined || reference <= 0 ? null : value / reference;
}

/** One table row per timing, with the two ratios; `null` where a ratio does not apply. */
export function timingRows(timings: readonly Measurement[]) {
  return timings.map((m) => ({
    workload: m.workload,
    implementation: m.contender,
    medianMs: m.medianMs,
    ratioToPi: m.contender === "floor" ? null : ratio(m.medianMs, piOf(timings, m.workload)),
    ratioToFloor: m.contender === "floor" ? null : ratio(m.medianMs, floorOf(timings, m.workload)),
    cpuMedianMs: m.cpuMedianMs,
    samplesMs: m.samplesMs,
    cpuSamplesMs: m.cpuSamplesMs,
  }));
}

function memoryRows(memory: readonly MemoryMeasurement[]) {
  return memory.map((m) => {
    const pi = memory.find((other) => other.workload === m.workload && other.contender === "pi")?.medianMb;
    return {
      workload: m.workload,
      implementation: m.contender,
      medianMb: m.medianMb,
      ratioToPi: m.contender === "pi" ? null : ratio(m.medianMb, pi),
      samplesMb: m.samplesMb,
    };
  });
}

function pad(text: string, width: number, right = false): string {
  return right ? text.padStart(width) : text.padEnd(width);
}

const formatRatio = (value: number | null) => (value === null ? "–" : `${value.toFixed(2)}×`);

/** Prints the timing table, the heap table and PASS/FAIL per target. */
export function printReport(results: SuiteResults, print: (line: string) => void = console.log): void {
  const label = (id: ContenderId) => CONTENDER_LABELS[id];
  if (results.timings.length > 0) print("");
  if (results.timings.length > 0)
    print(
      `${pad("workload", 12)} ${pad("implementation", 28)} ${pad("median ms", 10, true)} ${pad("÷ pi", 7, true)} ${pad("÷ floor", 8, true)} ${pad("cpu ms", 9, true)}`,
    );
  for (const row of timingRows(results.timings)) {
    print(
      `${pad(row.workload, 12)} ${pad(label(row.implementation), 28)} ${pad(row.medianMs.toFixed(1), 10, true)} ${pad(formatRatio(row.ratioToPi), 7, true)} ${pad(formatRatio(row.ratioToFloor), 8, true)} ${pad(row.cpuMedianMs.toFixed(1), 9, true)}`,
    );
  }
  if (results.memory.length > 0) {
    print("");
    print(`${pad("heap", 12)} ${pad("implementation", 28)} ${pad("median MB", 10, true)} ${pad("÷ pi", 7, true)}`);
    for (const row of memoryRows(results.memory)) {
      print(
        `${pad(row.workload, 12)} ${pad(label(row.implementation), 28)} ${pad(row.medianMb.toFixed(2), 10, true)} ${pad(formatRatio(row.ratioToPi), 7, true)}`,
      );
    }
  }
  if (results.manyTurns.length > 0) {
    print("");
    const w5 = (contender: ContenderId) =>
      results.timings.find((m) => m.workload === "W5" && m.contender === contender);
    print(
      `${pad("W5", 8)} ${pad("implementation", 28)} ${pad("turns/s", 8, true)} ${pad("cpu t/s", 8, true)} ${pad("peak kB/turn", 13, true)} ${pad("after kB/turn", 14, true)}  reachable after the run`,
    );
    for (const figure of results.manyTurns) {
      const timing = figure.turns === W5_TURNS ? w5(figure.contender) : undefined;
      const rate = (ms: number | undefined) => (ms === undefined ? "–" : ((figure.turns * 1000) / ms).toFixed(0));
      print(
        `${pad(`${figure.turns}`, 8)} ${pad(label(figure.contender), 28)} ${pad(rate(timing?.medianMs), 8, true)} ${pad(rate(timing?.cpuMedianMs), 8, true)} ${pad(figure.peakKbPerTurn.toFixed(1), 13, true)} ${pad(figure.retainedKbPerTurn.toFixed(1), 14, true)}  ${figure.stillReachable} of ${figure.probed}${figure.stillReachableKinds ? ` (${figure.stillReachableKinds})` : ""}`,
      );
    }
  }
  if (results.targets.length > 0) {
    print("");
    print(`${pad("wall", 12)} ${pad("cpu", 12)} ${pad("target", 50)} limit`);
    for (const target of results.targets) {
      const wall = `${target.wall.pass ? "PASS" : "FAIL"} ${target.wall.value.toFixed(2)}`;
      const cpu = target.cpu ? `${target.cpu.pass ? "PASS" : "FAIL"} ${target.cpu.value.toFixed(2)}` : "–";
      print(`${pad(wall, 12)} ${pad(cpu, 12)} ${pad(target.name, 50)} ${target.limit}`);
    }
  }
  print("");
  const load = (values: readonly number[]) => values.map((value) => value.toFixed(1)).join(" ");
  print(
    `total bench time: ${results.totalSeconds.toFixed(1)} s wall, ${results.cpuSeconds.toFixed(1)} s CPU; load average ${load(results.loadAverage.start)} at start, ${load(results.loadAverage.end)} at end (${cpus().length} CPUs)`,
  );
}

/** Writes the figures, the targets and the environment as JSON, for comparing runs over time. */
export function writeJson(path: string, results: SuiteResults): void {
  const processor = cpus();
  const document = {
    date: new Date().toISOString(),
    node: process.version,
    v8: process.versions.v8,
    platform: `${process.platform}-${process.arch}`,
    cpu: { model: processor[0]?.model ?? "unknown", count: processor.length },
    command: results.command,
    measuredCode: results.measuredCode,
    eventsPerChunk: EVENTS_PER_CHUNK,
    totalSeconds: results.totalSeconds,
    cpuSeconds: results.cpuSeconds,
    loadAverage: results.loadAverage,
    timings: timingRows(results.timings),
    memory: memoryRows(results.memory),
    manyTurns: results.manyTurns,
    targets: results.targets,
  };
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(document, null, 2)}\n`);
}
