import { resolve } from "node:path";
import { checkStructure, isClean } from "./check.js";
import { formatReport } from "./report.js";

/** What one run of `check:structure` prints and the exit code it ends with. */
export interface StructureCliResult {
  /** 0: no problems; 1: problems, listed in `stdout`. */
  code: 0 | 1;
  /** The report. */
  stdout: string;
}

/**
 * Runs `check:structure` on its command-line arguments (`[root]`, default
 * `defaultRoot`) without touching the process, so the command and its
 * tests share one implementation.
 */
export function runCheckStructure(args: readonly string[], defaultRoot: string): StructureCliResult {
  const report = checkStructure(resolve(args[0] ?? defaultRoot));
  return { code: isClean(report) ? 0 : 1, stdout: `${formatReport(report)}\n` };
}
