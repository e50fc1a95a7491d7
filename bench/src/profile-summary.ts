/**
 * Prints the top frames of a V8 `.cpuprofile` (from `node --cpu-prof`) by
 * self time, and optionally by total (inclusive) time.
 *
 *   pnpm --filter @turnkit/bench profile:summary /tmp/prof/CPU.*.cpuprofile [--top 25] [--total] [--filter agent-loop] [--by-file]
 *
 * tsx compiles each TypeScript module to one minified line, so a profile
 * only knows columns of that line. To print `file.ts:line`, this script
 * imports each profiled module under `packages/` (with source maps enabled,
 * which tsx supplies inline) and maps the column back through
 * `module.findSourceMap`. Run it with `--conditions=source`, as the script
 * entry does; modules that fail to load keep their generated position.
 *
 * Self time of a frame is its sample count times the sampling interval:
 * time spent in that function itself, not in what it called. Frames are
 * merged by function, file, line and column across the call tree. Paths
 * are shown relative to the repository; `(program)`, `(idle)` and
 * `(garbage collector)` are V8's own buckets. Percentages are of the busy
 * time (every sample but `(idle)`), so a profile of a short workload is not
 * diluted by the time the process waited.
 *
 * `--by-file` sums self time per file instead (`(garbage collector)` and
 * V8's other buckets stay rows of their own): which modules the time is
 * spent in, when no single function stands out.
 *
 * Only samples from the first one whose stack holds `--from FUNCTION` on
 * are counted (default `timeAlternating`, where the bench starts its
 * rounds), so module loading and script building are left out; pass
 * `--from ""` to count the whole profile.
 */
import { readFileSync } from "node:fs";
import { findSourceMap, type SourceMap } from "node:module";
import { fileURLToPath } from "node:url";

interface CallFrame {
  functionName: string;
  url: string;
  /** 0-based, as V8 writes it. */
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** One function's share of a profile. */
export interface FrameSummary {
  frame: string;
  location: string;
  selfMs: number;
  selfPercent: number;
  totalMs: number;
  totalPercent: number;
}

const repositoryRoot = fileURLToPath(new URL("../../", import.meta.url));

const sourceMaps = new Map<string, SourceMap | undefined>();

/** Loads the source maps of the profiled TypeScript modules of `packages/` (see the file comment). */
async function loadSourceMaps(profile: CpuProfile): Promise<void> {
  process.setSourceMapsEnabled(true);
  const packagesUrl = new URL("../../packages/", import.meta.url).href;
  for (const { callFrame } of profile.nodes) {
    const { url } = callFrame;
    if (sourceMaps.has(url) || !url.startsWith(packagesUrl) || !url.endsWith(".ts")) continue;
    try {
      await import(url);
      sourceMaps.set(url, findSourceMap(url));
    } catch {
      sourceMaps.set(url, undefined);
    }
  }
}

function location(frame: CallFrame): string {
  if (!frame.url) return "";
  let path = frame.url.startsWith("file://") ? fileURLToPath(frame.url) : frame.url;
  if (path.startsWith(repositoryRoot)) path = path.slice(repositoryRoot.length);
  path = path.replace(/^.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, "");
  const entry = sourceMaps.get(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber);
  if (entry && "originalLine" in entry) return `${path}:${entry.originalLine + 1}`;
  return frame.url.endsWith(".ts") ? `${path} (col ${frame.columnNumber})` : `${path}:${frame.lineNumber + 1}`;
}

/**
 * Self and total time per function. Total time counts a sample once per
 * function even when the function recurses. Times come from `timeDeltas`,
 * so a sample's weight is the real interval before it.
 */
export function summarizeProfile(profile: CpuProfile, from = ""): FrameSummary[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const holdsFrom = (id: number) => {
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      if (byId.get(current)!.callFrame.functionName === from) return true;
    }
    return false;
  };
  let counting = from === "";

  const keyOf = (node: ProfileNode) =>
    `${node.callFrame.functionName || "(anonymous)"}\u0000${location(node.callFrame)}`;
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let busyUs = 0;
  profile.samples.forEach((id, index) => {
    const weight = profile.timeDeltas[index] ?? 0;
    const node = byId.get(id);
    if (!node) return;
    if (!counting) counting = holdsFrom(id);
    if (!counting) return;
    if (node.callFrame.functionName !== "(idle)") busyUs += weight;
    const key = keyOf(node);
    self.set(key, (self.get(key) ?? 0) + weight);
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const ancestor = byId.get(current)!;
      const ancestorKey = keyOf(ancestor);
      if (seen.has(ancestorKey)) continue;
      seen.add(ancestorKey);
      total.set(ancestorKey, (total.get(ancestorKey) ?? 0) + weight);
    }
  });

  const summaries: FrameSummary[] = [];
  for (const [key, totalUs] of total) {
    const [frame, where] = key.split("\u0000") as [string, string];
    const selfUs = self.get(key) ?? 0;
    summaries.push({
      frame,
      location: where,
      selfMs: selfUs / 1000,
      selfPercent: (100 * selfUs) / busyUs,
      totalMs: totalUs / 1000,
      totalPercent: (100 * totalUs) / busyUs,
    });
  }
  return summaries;
}

/** Self time summed per file (a frame without a file is a row of its own); total time is not kept. */
function byFileRows(rows: readonly FrameSummary[]): FrameSummary[] {
  const files = new Map<string, FrameSummary>();
  for (const row of rows) {
    const file = row.location ? row.location.replace(/(:\d+| \(col \d+\))$/, "") : row.frame;
    const summary = files.get(file) ?? {
      frame: "",
      location: file,
      selfMs: 0,
      selfPercent: 0,
      totalMs: 0,
      totalPercent: 0,
    };
    summary.selfMs += row.selfMs;
    summary.selfPercent += row.selfPercent;
    files.set(file, summary);
  }
  return [...files.values()];
}

async function main(argv: readonly string[]): Promise<void> {
  const files: string[] = [];
  let top = 25;
  let byTotal = false;
  let byFile = false;
  let filter: string | undefined;
  let from = "timeAlternating";
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg === "--top") top = Number(argv[++index]);
    else if (arg === "--total") byTotal = true;
    else if (arg === "--by-file") byFile = true;
    else if (arg === "--filter") filter = argv[++index];
    else if (arg === "--from") from = argv[++index] ?? "";
    else if (arg !== "--") files.push(arg);
  }
  if (files.length === 0) {
    console.log(
      "usage: tsx --conditions=source src/profile-summary.ts FILE.cpuprofile [--top N] [--total] [--filter TEXT] [--from FUNCTION] [--by-file]",
    );
    process.exit(1);
  }
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
    await loadSourceMaps(profile);
    const wallMs = (profile.endTime - profile.startTime) / 1000;
    let rows = summarizeProfile(profile, from);
    const idleMs = rows.find((row) => row.frame === "(idle)")?.selfMs ?? 0;
    const countedMs = rows.reduce((sum, row) => sum + row.selfMs, 0);
    rows = rows.filter((row) => row.frame !== "(idle)");
    if (filter) rows = rows.filter((row) => row.location.includes(filter!) || row.frame.includes(filter!));
    if (byFile) rows = byFileRows(rows);
    rows.sort((a, b) => (byTotal ? b.totalMs - a.totalMs : b.selfMs - a.selfMs));
    console.log(
      `${file}: ${wallMs.toFixed(0)} ms profiled, ${countedMs.toFixed(0)} ms counted${from ? ` from ${from}` : ""}, ${(countedMs - idleMs).toFixed(0)} ms busy; top ${top} by ${byTotal ? "total" : "self"} time, % of busy time`,
    );
    console.log(`${"self ms".padStart(9)} ${"self %".padStart(7)} ${"total %".padStart(8)}  function  location`);
    for (const row of rows.slice(0, top)) {
      console.log(
        `${row.selfMs.toFixed(1).padStart(9)} ${row.selfPercent.toFixed(1).padStart(6)}% ${row.totalPercent.toFixed(1).padStart(7)}%  ${row.frame}  ${row.location}`,
      );
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main(process.argv.slice(2));
