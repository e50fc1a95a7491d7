/**
 * Starts the stdio mode's cases: the server process (`mcp-stdio-server.ts`)
 * compiled once per run, the SDK bundled in, so each case's process starts
 * with plain `node` (no TypeScript loader, no module resolution of the
 * SDK's hundreds of files), and each case's spec and record in a folder of
 * its own.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { McpStdioServerConfig } from "@turnkit/agent-mcp";
import { build } from "esbuild";
import type { McpCaseRecord } from "./mcp-case-server.js";
import type { McpStdioCase } from "./mcp-stdio-arbitraries.js";

const SOURCE = fileURLToPath(new URL("./mcp-stdio-server.ts", import.meta.url));
const BUNDLE = fileURLToPath(new URL("../node_modules/.mcp-fuzz/stdio-server.mjs", import.meta.url));

/**
 * The script of `sh -c` that starts a case's process: appends `{"spawned":<pid>}` to the record file
 * (its fourth argument) and runs the server command (its arguments) in its place.
 */
const NOTE_SPAWN_AND_EXEC = `printf '{"spawned":%s}\\n' "$$" >> "$4" && exec "$@"`;

/**
 * The same, but the shell runs the server as its child and waits for it, as
 * `sh -c "cd app && node server.js"`, `npx` or `uv run` do (the case's
 * `wrapper: "waits"`): signals sent to the shell do not reach the server. The shell
 * closes its own copies of the pipes, so the server's closing its stdout
 * is seen.
 */
const NOTE_SPAWN_AND_RUN = `printf '{"spawned":%s}\\n' "$$" >> "$4"; "$@" <&0 & exec 0<&- 1>&-; wait $!`;

/**
 * The same, but a subshell starts the server and exits at once (the case's
 * `wrapper: "detaches"`), and the shell lives on as `sleep`: the server is
 * no descendant of the process the host started, only its pipes tell it.
 */
const NOTE_SPAWN_AND_DETACH = `printf '{"spawned":%s}\\n' "$$" >> "$4"; exec 3<&0; ( "$@" <&3 3<&- & ); exec 0<&- 1>&- 3<&-; exec sleep 600`;

const SCRIPTS = { none: NOTE_SPAWN_AND_EXEC, waits: NOTE_SPAWN_AND_RUN, detaches: NOTE_SPAWN_AND_DETACH } as const;

let compiled: Promise<unknown> | undefined;

/** A stdio case ready to start: the server option a host gives, and what its processes noted. */
export interface LaunchedStdioCase {
  readonly server: McpStdioServerConfig;
  /** What the case's processes received and were answered so far. */
  record(): McpCaseRecord;
  /**
   * The pid of every process started for the case so far, noted by the
   * shell that starts it before it becomes the server (`exec`), so a process
   * that was stopped before its server code ran (a connect that timed out
   * on a loaded machine) is counted too.
   */
  pids(): number[];
  /** Those of the case's processes still running (a wrapped server's too). */
  running(): number[];
  /**
   * How many calls of each tool a process answered (a message of at most
   * `maxBytes`) before it wrote or did anything that breaks its
   * connection: a malformed JSON-RPC message, a message longer than
   * `maxBytes`, an exit, a signal, a closed stdout or stdin.
   */
  answeredBeforeBreak(maxBytes: number): Map<string, number>;
  /** Whether a process wrote a message the protocol's schema refuses (a malformed JSON-RPC message). */
  wroteMalformed(): boolean;
  /** Removes the case's folder. */
  cleanup(): void;
}

/** Prepares `spec`'s server command (compiling the server at the first case of the run). */
export async function launchStdioCase(spec: McpStdioCase): Promise<LaunchedStdioCase> {
  compiled ??= build({
    entryPoints: [SOURCE],
    outfile: BUNDLE,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
  });
  await compiled;
  const folder = mkdtempSync(join(tmpdir(), "turnkit-mcp-stdio-"));
  const casePath = join(folder, "case.json");
  const recordPath = join(folder, "record.jsonl");
  writeFileSync(casePath, JSON.stringify(spec));
  writeFileSync(recordPath, "");
  const entries = (): Record<string, unknown>[] => {
    // A process appends while this reads: only lines ended by a newline count.
    const text = readFileSync(recordPath, "utf8");
    return text
      .slice(0, text.lastIndexOf("\n") + 1)
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  };
  const values = (key: string) => entries().flatMap((entry) => (key in entry ? [entry[key]] : []));
  return {
    // The shell notes its pid and replaces itself with the server (`exec`: the same pid): a note that
    // takes a millisecond of CPU, where the server's own first line comes after node's start (0.2 s of CPU).
    server: {
      command: "/bin/sh",
      args: ["-c", SCRIPTS[spec.stdio.wrapper], "sh", process.execPath, BUNDLE, casePath, recordPath],
    },
    record: () => ({
      calls: values("call") as string[],
      answers: values("answer") as string[],
      slowCalls: values("slow") as string[],
    }),
    pids: () => values("spawned") as number[],
    running: () =>
      [...new Set([...values("spawned"), ...values("pid")] as number[])].filter((pid) => runs(pid, casePath)),
    answeredBeforeBreak: (maxBytes) => {
      const broken = new Set<unknown>();
      const answered = new Map<string, number>();
      for (const entry of entries()) {
        const tooLarge = typeof entry.bytes === "number" && entry.bytes > maxBytes;
        if ("broke" in entry || tooLarge) broken.add(entry.process);
        else if (typeof entry.answered === "string" && !broken.has(entry.process))
          answered.set(entry.answered, (answered.get(entry.answered) ?? 0) + 1);
      }
      return answered;
    },
    wroteMalformed: () => values("broke").includes("malformed"),
    cleanup: () => rmSync(folder, { recursive: true, force: true }),
  };
}

/**
 * Whether the process `pid` runs, and is the case's (where `/proc` tells
 * a process's command line: a pid the system gave again to another
 * process after the case's exited is not the case's). A zombie (ended, not
 * yet reaped: a wrapped server's parent is gone, and the system's first
 * process may not reap) has ended.
 */
function runs(pid: number, casePath: string): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!existsSync("/proc/self/cmdline")) return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    if (/^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2))) return false;
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(casePath);
  } catch {
    return false;
  }
}
