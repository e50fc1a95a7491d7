import { resolve } from "node:path";
import { checkDocs, isClean } from "./check.js";
import { formatDocsReport } from "./report.js";

/** What one run of `check:docs` prints and the exit code it ends with. */
export interface DocsCliResult {
  /** 0: no problems; 1: problems listed on stdout; 2: an unknown option, named on stderr. */
  code: 0 | 1 | 2;
  /** The report, when the check ran. */
  stdout: string;
  /** The usage error, when an option was not understood. */
  stderr: string;
}

/**
 * Runs `check:docs` on its command-line arguments (`[--properties] [root]`,
 * the root defaulting to `defaultRoot`) without touching the process, so
 * the command and its tests share one implementation.
 */
export function runCheckDocs(args: readonly string[], defaultRoot: string): DocsCliResult {
  const unknown = args.filter((arg) => arg.startsWith("--") && arg !== "--properties");
  if (unknown.length > 0) {
    const stderr = `check:docs: unknown option ${unknown.join(", ")} (the only option is --properties)\n`;
    return { code: 2, stdout: "", stderr };
  }
  const root = resolve(args.find((arg) => !arg.startsWith("--")) ?? defaultRoot);
  const report = checkDocs(root, { properties: args.includes("--properties") });
  return { code: isClean(report) ? 0 : 1, stdout: `${formatDocsReport(report)}\n`, stderr: "" };
}
