/**
 * What a W5 turn keeps alive, by kind: a heap snapshot at W5's fullest
 * moment (when the last session starts its first pair of tool calls, the
 * first sample point of the W5 heap run) for each contender, less a
 * snapshot taken just before the run, divided by the turns. Objects are
 * grouped by kind and by who holds them (`object:Turn`,
 * `array:(object elements) <-elements- object:Array`, a closure with its
 * file and line), so the runner's figure minus our Agent's says which
 * parts of the runner make its peak heap per turn larger.
 *
 * Run: `pnpm --filter @turnkit/bench heap:w5 -- [--turns 500] [--top 40]`.
 * Each snapshot of 500 turns is about 40 MB of JSON, parsed in this
 * process; 2,000 turns needs `NODE_OPTIONS=--max-old-space-size=6000`.
 */
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ContenderId } from "./contenders.js";
import { checkMeasuredCode } from "./measured-build.js";
import { runManyTurns } from "./w5-many-turns.js";

/** The parts of V8's heap snapshot JSON this script reads. */
interface HeapSnapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
      location_fields: string[];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
  locations: number[];
}

/** Live objects of one kind: how many, and their own bytes. */
interface KindFigure {
  count: number;
  bytes: number;
}

const CONTENDERS: readonly Exclude<ContenderId, "floor">[] = ["ours", "runner"];

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}

/** Writes a heap snapshot to `file` as it is taken: nothing of it stays in this process's heap. */
async function takeSnapshot(session: Session, file: string): Promise<void> {
  const out = createWriteStream(file);
  const onChunk = (message: { params: { chunk: string } }) => out.write(message.params.chunk);
  session.on("HeapProfiler.addHeapSnapshotChunk", onChunk);
  await session.post("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
  session.off("HeapProfiler.addHeapSnapshotChunk", onChunk);
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

function readSnapshot(file: string): HeapSnapshot {
  return JSON.parse(readFileSync(file, "utf8")) as HeapSnapshot;
}

/** The script URLs by id, for closures' locations (read once, with the debugger on only meanwhile). */
async function scriptUrls(session: Session): Promise<Map<string, string>> {
  const urls = new Map<string, string>();
  const onScript = (message: { params: { scriptId: string; url: string } }) =>
    urls.set(message.params.scriptId, message.params.url);
  session.on("Debugger.scriptParsed", onScript);
  await session.post("Debugger.enable");
  await session.post("Debugger.disable");
  session.off("Debugger.scriptParsed", onScript);
  return urls;
}

/** Every object of `snapshot` on the JavaScript heap, counted by kind: its type and name (a closure: with its place), and its first strong holder. */
function kindsOf(snapshot: HeapSnapshot, urls: Map<string, string>): Map<string, KindFigure> {
  const { meta } = snapshot.snapshot;
  const nodeFields = meta.node_fields.length;
  const edgeFields = meta.edge_fields.length;
  const [nodeTypes] = meta.node_types;
  const [edgeTypes] = meta.edge_types;
  const typeAt = meta.node_fields.indexOf("type");
  const nameAt = meta.node_fields.indexOf("name");
  const sizeAt = meta.node_fields.indexOf("self_size");
  const edgeCountAt = meta.node_fields.indexOf("edge_count");
  const edgeTypeAt = meta.edge_fields.indexOf("type");
  const edgeNameAt = meta.edge_fields.indexOf("name_or_index");
  const edgeToAt = meta.edge_fields.indexOf("to_node");
  const { nodes, edges, strings } = snapshot;
  const count = nodes.length / nodeFields;

  const places = new Map<number, string>();
  const locationFields = meta.location_fields.length;
  for (let at = 0; at < snapshot.locations.length; at += locationFields) {
    const [node, script, line] = snapshot.locations.slice(at, at + 3) as [number, number, number];
    const url = urls.get(String(script)) ?? `script ${script}`;
    places.set(node / nodeFields, `${url.replace(/^.*\/(packages|bench|node_modules)\//, "$1/")}:${line + 1}`);
  }
  const firstEdge = new Int32Array(count + 1);
  for (let node = 0; node < count; node++) {
    firstEdge[node + 1] = firstEdge[node]! + nodes[node * nodeFields + edgeCountAt]! * edgeFields;
  }
  /** The closure a suspended async function (a `Generator` object) runs, by its `function` edge. */
  const generatorFunction = (node: number): number => {
    for (let edge = firstEdge[node]!; edge < firstEdge[node + 1]!; edge += edgeFields) {
      if (strings[edges[edge + edgeNameAt]!] === "function") return edges[edge + edgeToAt]! / nodeFields;
    }
    return -1;
  };
  const nameOf = (node: number): string => {
    const type = nodeTypes[nodes[node * nodeFields + typeAt]!]!;
    if (type.includes("string")) return `${type}:(string)`;
    const name = strings[nodes[node * nodeFields + nameAt]!]!.slice(0, 60);
    if (type === "object" && name === "Generator") {
      const fn = generatorFunction(node);
      if (fn >= 0) return `${type}:Generator of ${nameOf(fn)}`;
    }
    const place = type === "closure" ? places.get(node) : undefined;
    return place ? `${type}:${name || "(anonymous)"}@${place}` : `${type}:${name}`;
  };

  const holder = new Int32Array(count).fill(-1);
  const holderEdge: string[] = [];
  for (let node = 0, edge = 0; node < count; node++) {
    const edgeCount = nodes[node * nodeFields + edgeCountAt]!;
    for (let index = 0; index < edgeCount; index++, edge += edgeFields) {
      const to = edges[edge + edgeToAt]! / nodeFields;
      const type = edgeTypes[edges[edge + edgeTypeAt]!]!;
      if (type === "weak" || holder[to] !== -1) continue;
      holder[to] = node;
      const name = edges[edge + edgeNameAt]!;
      holderEdge[to] = type === "element" || type === "hidden" ? `[${type}]` : strings[name]!;
    }
  }

  const kinds = new Map<string, KindFigure>();
  for (let node = 0; node < count; node++) {
    // Off-heap memory (buffers of the snapshot files among it) is not the heap W5 measures.
    if (nodeTypes[nodes[node * nodeFields + typeAt]!] === "native") continue;
    const by = holder[node]!;
    const kind = by >= 0 ? `${nameOf(node)}  <-${holderEdge[node]}- ${nameOf(by)}` : nameOf(node);
    const figure = kinds.get(kind) ?? { count: 0, bytes: 0 };
    figure.count++;
    figure.bytes += nodes[node * nodeFields + sizeAt]!;
    kinds.set(kind, figure);
  }
  return kinds;
}

/** `after` less `before`, per kind (kinds of either), divided by `turns`. */
function difference(
  after: Map<string, KindFigure>,
  before: Map<string, KindFigure>,
  turns = 1,
): Map<string, KindFigure> {
  const figures = new Map<string, KindFigure>();
  const none: KindFigure = { count: 0, bytes: 0 };
  for (const kind of new Set([...after.keys(), ...before.keys()])) {
    const a = after.get(kind) ?? none;
    const b = before.get(kind) ?? none;
    figures.set(kind, { count: (a.count - b.count) / turns, bytes: (a.bytes - b.bytes) / turns });
  }
  return figures;
}

/**
 * Snapshots one contender's heap before a W5 run (into `before`) and at its
 * fullest moment (into `peak`). Only the files are kept, so the snapshots
 * see nothing of this script's own figures.
 */
async function snapshotRun(
  session: Session,
  contender: Exclude<ContenderId, "floor">,
  turns: number,
  files: { before: string; peak: string },
): Promise<void> {
  await runManyTurns(contender, turns);
  await takeSnapshot(session, files.before);
  let calls = 0;
  let peak: Promise<void> | undefined;
  await runManyTurns(contender, turns, {
    onToolCall: () => {
      if (++calls === 2 * turns) peak = takeSnapshot(session, files.peak);
    },
  });
  await peak;
}

function print(title: string, figures: Map<string, KindFigure>, top: number): void {
  const rows = [...figures].sort((a, b) => b[1].bytes - a[1].bytes);
  const total = rows.reduce((sum, [, figure]) => sum + figure.bytes, 0);
  console.log(`\n${title}: ${(total / 1024).toFixed(1)} kB per turn (own bytes of every live object)`);
  console.log(`${"B/turn".padStart(7)} ${"n/turn".padStart(7)}  kind  <-held by-`);
  for (const [kind, figure] of rows.slice(0, top)) {
    console.log(`${figure.bytes.toFixed(0).padStart(7)} ${figure.count.toFixed(2).padStart(7)}  ${kind}`);
  }
}

async function main(): Promise<void> {
  const turns = flag("--turns", 500);
  const top = flag("--top", 40);
  console.log(
    `measuring the packages' ${checkMeasuredCode() === "build" ? "dist/ builds" : "sources"}, ${turns} turns`,
  );
  const session = new Session();
  session.connect();
  // Load every module first, so the closures' scripts are known.
  for (const contender of CONTENDERS) await runManyTurns(contender, 10);
  const urls = await scriptUrls(session);
  const figures = new Map<string, Map<string, KindFigure>>();
  const directory = mkdtempSync(join(tmpdir(), "turnkit-w5-heap-"));
  const filesOf = (contender: string) => ({
    before: join(directory, `${contender}-before.heapsnapshot`),
    peak: join(directory, `${contender}-peak.heapsnapshot`),
  });
  try {
    for (const contender of CONTENDERS) await snapshotRun(session, contender, turns, filesOf(contender));
    session.disconnect();
    for (const contender of CONTENDERS) {
      const files = filesOf(contender);
      const before = kindsOf(readSnapshot(files.before), urls);
      figures.set(contender, difference(kindsOf(readSnapshot(files.peak), urls), before, turns));
      print(`W5 ${contender}`, figures.get(contender)!, top);
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  print("W5 runner less our Agent", difference(figures.get("runner")!, figures.get("ours")!), top);
}

await main();
