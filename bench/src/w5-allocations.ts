/**
 * Where a W5 turn's allocations come from: bytes allocated per turn by
 * function, garbage included, for one contender (`pi`, `ours` or
 * `runner`; default `runner`). A third of the runner's W5 time is garbage
 * collection, and a CPU profile shows only its total; this shows which
 * code makes the objects. Three warm-up runs of 2,000 sessions, then V8's
 * sampling heap profiler (one sample per 512 bytes, objects collected by
 * either GC kept in the profile) over `--rounds` runs (default 3).
 *
 * Run: `pnpm --filter @turnkit/bench alloc:w5 -- runner --top 40`.
 */
import { Session } from "node:inspector/promises";
import type { ContenderId } from "./contenders.js";
import { checkMeasuredCode } from "./measured-build.js";
import { W5_TURNS, runManyTurns } from "./w5-many-turns.js";

/** A node of V8's sampling heap profile (`HeapProfiler.SamplingHeapProfileNode`), as far as this script reads it. */
interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const WARMUP_RUNS = 3;

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}

/** Bytes allocated by each function (name and place), summed over every path that reached it. */
function bytesByFunction(head: ProfileNode): Map<string, number> {
  const bytes = new Map<string, number>();
  const pending = [head];
  for (let node = pending.pop(); node; node = pending.pop()) {
    const { functionName, url, lineNumber } = node.callFrame;
    const place = url.replace(/^.*\/(packages|bench|node_modules)\//, "$1/");
    const key = `${functionName || "(anonymous)"}  ${place}:${lineNumber + 1}`;
    bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
    pending.push(...node.children);
  }
  return bytes;
}

async function main(): Promise<void> {
  const contender = (process.argv.slice(2).find((arg) => ["pi", "ours", "runner"].includes(arg)) ??
    "runner") as Exclude<ContenderId, "floor">;
  const rounds = flag("--rounds", 3);
  const top = flag("--top", 30);
  console.log(`measuring the packages' ${checkMeasuredCode() === "build" ? "dist/ builds" : "sources"}`);
  for (let run = 0; run < WARMUP_RUNS; run++) await runManyTurns(contender, W5_TURNS);
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.enable");
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 512,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  for (let round = 0; round < rounds; round++) await runManyTurns(contender, W5_TURNS);
  const { profile } = await session.post("HeapProfiler.stopSampling");
  session.disconnect();
  const turns = rounds * W5_TURNS;
  const bytes = bytesByFunction(profile.head as ProfileNode);
  const total = [...bytes.values()].reduce((sum, size) => sum + size, 0);
  console.log(
    `W5 ${contender}: ${(total / 1024 / turns).toFixed(1)} kB allocated per turn (sampled, garbage included), ${rounds} runs of ${W5_TURNS} turns`,
  );
  for (const [key, size] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${(size / turns).toFixed(0).padStart(7)} B/turn  ${key}`);
  }
}

await main();
