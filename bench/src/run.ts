import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { CONTENDERS, type ContenderId } from "./contenders.js";
import { canCollectGarbage, timeAlternating, type Measurement } from "./harness.js";
import { printReport, writeJson, type SuiteResults } from "./report.js";
import { checkMeasuredCode } from "./measured-build.js";
import { evaluateTargets } from "./targets.js";
import { W1, W1R } from "./w1-streaming.js";
import { w2LongRun, w2Variant } from "./w2-long-run.js";
import { MEMORY_METHOD, measureMemory, type MemoryMeasurement } from "./w3-memory.js";
import { W4 } from "./w4-wide-batch.js";
import { measureManyTurnsMemory, W5, W5_CONTENDERS, type ManyTurnsHeap } from "./w5-many-turns.js";
import { runW6SearchTools } from "./w6-search-tools.js";
import { runW7 } from "./w7-durable.js";
import { runW8 } from "./w8-scale.js";
import type { TimedWorkload } from "./workload.js";

const USAGE = `pnpm bench [-- options]

  --only W0,W1,W2,W2-300,W2-1200,W3,W4   run only these workloads (W0 is W1's floor; W2 is both sizes and
                                          the JSON Schema variants W2-300-json, W2-1200-json)
          W5                              2,000 turns at once on one runner against as many bare Agents
          W1R                             the runner breakdown on W1 (only when named)
          W6                              the built-in grep and glob tools against grep -rn and find
          W7                              durable turns on Postgres against in-process turns
          W8                              1,000 durable turns over 4 worker processes, then with 50 SIGKILLs
                                          (only when named; W8_TURNS, W8_WORKERS, W8_KILLS override the sizes)
  --impl floor,pi,ours,runner,runner-no-retry   run only these implementations
  --rounds N                              timed rounds per workload instead of the defaults
  --out PATH                              write the JSON there (default: results/latest.json, full runs only)
  --no-write                              never write the JSON
`;

interface Options {
  only: Set<string> | undefined;
  impl: Set<ContenderId> | undefined;
  rounds: number | undefined;
  out: string | undefined;
  write: boolean;
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = { only: undefined, impl: undefined, rounds: undefined, out: undefined, write: true };
  const list = (value: string | undefined) =>
    new Set(
      (value ?? "")
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean),
    );
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index]!;
    const value = () => {
      const next = argv[++index];
      if (next === undefined) throw new Error(`${flag} needs a value\n\n${USAGE}`);
      return next;
    };
    switch (flag) {
      case "--only":
        options.only = new Set([...list(value())].map((id) => id.toUpperCase()));
        break;
      case "--impl": {
        const ids = list(value());
        for (const id of ids)
          if (!CONTENDERS.includes(id as ContenderId)) throw new Error(`unknown implementation ${id}\n\n${USAGE}`);
        options.impl = ids as Set<ContenderId>;
        break;
      }
      case "--rounds":
        options.rounds = Number(value());
        if (!Number.isInteger(options.rounds) || options.rounds < 1)
          throw new Error(`--rounds must be a positive integer\n\n${USAGE}`);
        break;
      case "--out":
        options.out = value();
        break;
      case "--no-write":
        options.write = false;
        break;
      case "--":
        break;
      case "--help":
      case "-h":
        console.log(USAGE);
        process.exit(0);
        break;
      default:
        throw new Error(`unknown option ${flag}\n\n${USAGE}`);
    }
  }
  return options;
}

/**
 * W2's warm-up: the runner's run times still fell over its first eight or
 * so runs of W2-300 (CPU 47, 40, 24, 43, 15, 13, then 7–10 ms, with two
 * warm-up runs), the JIT still optimising its code, and a median over
 * rounds that are partly warm-up mixes in a one-time cost the bare Agents
 * do not pay. The timed rounds start once the runs have settled; W2-1200
 * also gets seven rounds instead of five, because a run there either
 * includes a full GC of the transcript-sized heap or does not.
 */
const W2_300_PLAN = { warmup: 8, rounds: 15 };
const W2_1200_PLAN = { warmup: 6, rounds: 7 };

/**
 * Heap runs per W5 figure (the median is reported). One run gave the
 * runner's 200-turn peak anywhere from 13.7 to 17.6 kB per turn from one
 * run to the next (fixed costs and the sampling moment weigh more on 200
 * turns than on 2,000), and that single figure decided the flatness target.
 */
const W5_HEAP_ROUNDS = 3;

/** The timed workloads, in order, with their default rounds; W1R runs only when named. */
const TIMED: readonly TimedWorkload[] = [
  W1,
  w2LongRun(300, W2_300_PLAN),
  // The retry layer's cost is already shown by W1 and W2-300; at 1,200 steps it would double the runner's share of the suite.
  w2LongRun(1_200, W2_1200_PLAN, ["floor", "pi", "ours", "runner"]),
  w2Variant(300, W2_300_PLAN, ["pi", "ours", "runner"], { toolSchema: "json", afterW1: true }),
  w2Variant(1_200, W2_1200_PLAN, ["pi", "ours"], { toolSchema: "json", afterW1: true }),
  W4,
  W5,
  W1R,
];

function selected(options: Options, id: string): boolean {
  if (id === "W1R") return options.only?.has("W1R") === true;
  if (!options.only) return true;
  if (options.only.has(id.toUpperCase())) return true;
  if (id === "W1" && options.only.has("W0")) return true;
  if (id.startsWith("W2-") && options.only.has("W2")) return true;
  return false;
}

function contendersOf(workload: TimedWorkload, options: Options): ContenderId[] {
  let contenders = [...workload.contenders];
  // W0 alone means W1's floor only.
  if (workload.id === "W1" && options.only?.has("W0") && !options.only.has("W1")) contenders = ["floor"];
  if (options.impl) contenders = contenders.filter((id) => options.impl!.has(id));
  return contenders;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const measuredCode = checkMeasuredCode();
  console.log(
    measuredCode === "build"
      ? "measuring the packages' dist/ builds"
      : "measuring the TypeScript sources through tsx (keepNames): ratios are not comparable with the build's",
  );
  const started = performance.now();
  const loadAtStart = loadavg();
  if (!canCollectGarbage) console.log("note: W3 needs --expose-gc (pnpm bench passes it)");

  const timings: Measurement[] = [];
  for (const workload of TIMED) {
    if (!selected(options, workload.id)) continue;
    const contenders = contendersOf(workload, options);
    if (contenders.length === 0) continue;
    const plan = { ...workload.plan, rounds: options.rounds ?? workload.plan.rounds };
    const workloadStarted = performance.now();
    const measured = await timeAlternating(workload, contenders, plan);
    timings.push(...measured);
    console.log(
      `${workload.id}: ${workload.description} (${plan.rounds} rounds, ${((performance.now() - workloadStarted) / 1000).toFixed(1)} s)`,
    );
  }

  let manyTurns: ManyTurnsHeap[] = [];
  if (selected(options, "W5") && canCollectGarbage) {
    const heapStarted = performance.now();
    manyTurns = await measureManyTurnsMemory(
      W5_CONTENDERS.filter((id) => !options.impl || options.impl.has(id)),
      options.rounds ?? W5_HEAP_ROUNDS,
    );
    if (manyTurns.length > 0)
      console.log(
        `W5 heap: peak live heap (full GC per sample) and what survives the run, per turn (${((performance.now() - heapStarted) / 1000).toFixed(1)} s)`,
      );
  }

  let memory: MemoryMeasurement[] = [];
  if (selected(options, "W3")) {
    const keep = (ids: readonly ContenderId[]) => ids.filter((id) => !options.impl || options.impl.has(id));
    const memoryStarted = performance.now();
    memory = await measureMemory({
      w1Contenders: keep(["floor", "pi", "ours", "runner"]),
      w2Contenders: keep(["pi", "ours", "runner"]),
      rounds: options.rounds ?? 3,
      w2Steps: 300,
    });
    if (memory.length > 0)
      console.log(`W3: ${MEMORY_METHOD} (${((performance.now() - memoryStarted) / 1000).toFixed(1)} s)`);
  }

  // W6 times the built-in tools against system commands, not contenders: it prints its own table.
  if (selected(options, "W6") && (!options.impl || options.only?.has("W6")))
    await runW6SearchTools({ rounds: options.rounds });
  // W7 times durable turns (Postgres, DBOS) against in-process ones: it prints its own table.
  if (selected(options, "W7") && (!options.impl || options.only?.has("W7"))) await runW7({ rounds: options.rounds });
  // W8 runs worker processes for minutes: only when named.
  if (options.only?.has("W8")) {
    const size = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);
    await runW8({ turns: size("W8_TURNS"), workers: size("W8_WORKERS"), kills: size("W8_KILLS") });
  }

  const cpu = process.cpuUsage();
  const results: SuiteResults = {
    timings,
    memory,
    manyTurns,
    targets: evaluateTargets(timings, memory, manyTurns),
    totalSeconds: (performance.now() - started) / 1000,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    loadAverage: { start: loadAtStart, end: loadavg() },
    command: ["pnpm bench", ...process.argv.slice(2)].join(" "),
    measuredCode,
  };
  printReport(results);

  const partial = options.only !== undefined || options.impl !== undefined || options.rounds !== undefined;
  const out = options.out ?? (partial ? undefined : fileURLToPath(new URL("../results/latest.json", import.meta.url)));
  if (options.write && out) {
    writeJson(out, results);
    console.log(`wrote ${out}`);
  }
}

await main();
