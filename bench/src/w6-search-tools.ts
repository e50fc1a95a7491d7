import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createBuiltinTools, type RuntimeTool, type ToolExecutionContext } from "@turnkit/agent-core";
import { collectGarbage, median } from "./harness.js";
import { generateTree, TREE_NEEDLE, type GeneratedTree } from "./w6-tree.js";

/** The limit our tools must stay within, as a ratio to the system command on the same files. */
export const W6_TARGET_RATIO = 3;

const CONTEXT: ToolExecutionContext = {
  sessionId: "bench",
  turnId: "bench",
  toolCallId: "bench",
  assistantMessageId: undefined,
};

interface Sample {
  wallMs: number;
  cpuMs: number;
}

/** One row of the W6 table. */
interface Row {
  label: string;
  samples: Sample[];
  note: string;
}

type ToolResult = { content: { type: string; text?: string }[]; details: Record<string, unknown> };

/** Calls a built-in tool as the runner would, and times it with the CPU of every thread of this process. */
async function timeTool(
  tool: RuntimeTool<any, any>,
  input: Record<string, unknown>,
): Promise<Sample & { result: ToolResult }> {
  const cpuStarted = process.cpuUsage();
  const started = performance.now();
  const result = (await tool.impl.execute(
    CONTEXT,
    input as never,
    new AbortController().signal,
    () => {},
  )) as ToolResult;
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuStarted);
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, result };
}

/**
 * Runs a shell command line with its output in a file (GNU grep stops at the
 * first match when its output is /dev/null) and reads the children's CPU
 * time from bash's `times`. `undefined` when the program is missing.
 */
function timeCommand(commandLine: string, outputFile: string): Sample | undefined {
  const started = performance.now();
  const run = spawnSync("bash", ["-c", `${commandLine} > ${outputFile}; code=$?; times; exit $code`], {
    encoding: "utf8",
  });
  const wallMs = performance.now() - started;
  if (run.status !== 0 && run.status !== 1) return undefined;
  const children = run.stdout
    .trim()
    .split("\n")
    .at(-1)!
    .match(/(\d+)m([\d.]+)s (\d+)m([\d.]+)s/);
  const seconds = (m: string, s: string) => Number(m) * 60 + Number(s);
  return {
    wallMs,
    cpuMs: children ? (seconds(children[1]!, children[2]!) + seconds(children[3]!, children[4]!)) * 1000 : Number.NaN,
  };
}

function commandExists(name: string): boolean {
  return spawnSync("bash", ["-c", `command -v ${name}`]).status === 0;
}

function textOf(result: ToolResult): string {
  return result.content.map((block) => block.text ?? "").join("");
}

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`W6 check failed: ${what}`);
}

/**
 * W6 search tools: our `grep` and `glob` over a generated repository of
 * 20,000 files (a quarter hidden by `.gitignore`), against `grep -rn` and
 * `find` on the same files they search (the ignored folders and names
 * excluded by hand). Then the same tools with a pattern that matches almost
 * everything, to show they stop reading at their output limit: files read
 * and heap growth stay small however many matches there are.
 */
export async function runW6SearchTools(options: {
  rounds: number | undefined;
  print?: (line: string) => void;
}): Promise<void> {
  const print = options.print ?? console.log;
  const rounds = options.rounds ?? 7;
  const root = mkdtempSync(path.join(tmpdir(), "turnkit-bench-w6-"));
  try {
    const generationStarted = performance.now();
    const tree = generateTree(path.join(root, "repo"));
    const generationSeconds = (performance.now() - generationStarted) / 1000;
    await measure(tree, root, rounds, print);
    print(
      `W6: built-in grep and glob over ${tree.files.toLocaleString("en")} files (${tree.ignoredFiles.toLocaleString("en")} ignored), tree written in ${generationSeconds.toFixed(1)} s`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function measure(
  tree: GeneratedTree,
  scratch: string,
  rounds: number,
  print: (line: string) => void,
): Promise<void> {
  const tools = createBuiltinTools({ workspaceDir: tree.root });
  const grep = tools.find((tool) => tool.def.name === "grep")!;
  const glob = tools.find((tool) => tool.def.name === "glob")!;
  const searched = tree.files - tree.ignoredFiles + 1; // + the .gitignore
  const output = path.join(scratch, "out.txt");
  const quoted = JSON.stringify(tree.root);
  const grepLine = `grep -rn --exclude-dir=.git --exclude-dir=dist --exclude-dir=coverage --exclude='*.log' ${TREE_NEEDLE} ${quoted}`;
  const findLine = `find ${quoted} \\( -name .git -o -name node_modules -o -name dist -o -name coverage \\) -prune -o -type f -name '*.md' -print`;
  const hasGrep = commandExists("grep");
  const hasFind = commandExists("find");

  // Verify once: the tools find what the tree holds and search what the baselines search.
  const grepCheck = await timeTool(grep, { pattern: TREE_NEEDLE });
  check(
    grepCheck.result.details.matches === tree.needleLines,
    `grep found ${grepCheck.result.details.matches} needle lines, expected ${tree.needleLines}`,
  );
  check(
    grepCheck.result.details.filesSearched === searched,
    `grep searched ${grepCheck.result.details.filesSearched} files, expected ${searched}`,
  );
  const globCheck = await timeTool(glob, { pattern: "**/*.md" });
  check(
    globCheck.result.details.count === tree.markdownFiles,
    `glob found ${globCheck.result.details.count} files, expected ${tree.markdownFiles}`,
  );
  if (hasGrep) timeCommand(grepLine, output);
  if (hasFind) timeCommand(findLine, output);

  const rows = {
    grep: {
      label: "grep tool",
      samples: [],
      note: `${searched.toLocaleString("en")} files searched, ${tree.needleLines} matches`,
    } as Row,
    systemGrep: { label: "grep -rn (same files)", samples: [], note: "" } as Row,
    glob: { label: 'glob tool "**/*.md"', samples: [], note: `${tree.markdownFiles} paths` } as Row,
    find: { label: "find -name '*.md' (same folders)", samples: [], note: "" } as Row,
  };
  collectGarbage();
  for (let round = 0; round < rounds; round++) {
    rows.grep.samples.push(await timeTool(grep, { pattern: TREE_NEEDLE }));
    if (hasGrep) rows.systemGrep.samples.push(timeCommand(grepLine, output)!);
    rows.glob.samples.push(await timeTool(glob, { pattern: "**/*.md" }));
    if (hasFind) rows.find.samples.push(timeCommand(findLine, output)!);
  }

  // Past the limit: every line matches, every path matches.
  const flood = await floodRows(grep, glob, rounds);

  const wall = (row: Row) => median(row.samples.map((s) => s.wallMs));
  const cpu = (row: Row) => median(row.samples.map((s) => s.cpuMs));
  print("");
  print(`${"W6".padEnd(36)} ${"median ms".padStart(10)} ${"cpu ms".padStart(9)}  notes`);
  for (const row of [rows.grep, rows.systemGrep, rows.glob, rows.find, ...flood]) {
    if (row.samples.length === 0) {
      print(`${row.label.padEnd(36)} ${"skipped".padStart(10)}            the command is not installed`);
      continue;
    }
    print(
      `${row.label.padEnd(36)} ${wall(row).toFixed(1).padStart(10)} ${cpu(row).toFixed(1).padStart(9)}  ${row.note}`,
    );
  }
  print("");
  print(`${"wall".padEnd(12)} ${"cpu".padEnd(12)} ${"target".padEnd(42)} limit`);
  const target = (name: string, ours: Row, baseline: Row) => {
    if (baseline.samples.length === 0) {
      print(
        `${"–".padEnd(12)} ${"–".padEnd(12)} ${name.padEnd(42)} ${W6_TARGET_RATIO} (baseline command missing: skipped)`,
      );
      return;
    }
    const verdict = (value: number) => `${value <= W6_TARGET_RATIO ? "PASS" : "FAIL"} ${value.toFixed(2)}`;
    print(
      `${verdict(wall(ours) / wall(baseline)).padEnd(12)} ${verdict(cpu(ours) / cpu(baseline)).padEnd(12)} ${name.padEnd(42)} ${W6_TARGET_RATIO}`,
    );
  };
  target("W6 grep tool / grep -rn", rows.grep, rows.systemGrep);
  target("W6 glob tool / find", rows.glob, rows.find);
}

/** Patterns that match nearly everything: the tools must stop at their limit, so time, files read and heap stay small. */
async function floodRows(grep: RuntimeTool<any, any>, glob: RuntimeTool<any, any>, rounds: number): Promise<Row[]> {
  const rows: Row[] = [];
  for (const [label, tool, input] of [
    ["grep tool, every line matches", grep, { pattern: "." }],
    ['glob tool "**", every file matches', glob, { pattern: "**" }],
  ] as const) {
    const samples: Sample[] = [];
    let heapGrowth = 0;
    let last: ToolResult | undefined;
    for (let round = 0; round < rounds; round++) {
      collectGarbage();
      const before = process.memoryUsage().heapUsed;
      const sample = await timeTool(tool, input);
      heapGrowth = Math.max(heapGrowth, process.memoryUsage().heapUsed - before);
      samples.push(sample);
      last = sample.result;
    }
    const details = last!.details;
    check(details.truncated === true, `${label}: expected the limit to cut the result`);
    const read = "filesSearched" in details ? `${details.filesSearched} files read, ` : "";
    rows.push({
      label,
      samples,
      note: `stops at ${details.matches ?? details.count}: ${read}heap +${(heapGrowth / 1024 / 1024).toFixed(2)} MB (no GC during the call)`,
    });
    check(textOf(last!).includes("[Showing the first"), `${label}: expected the cut note`);
  }
  return rows;
}
