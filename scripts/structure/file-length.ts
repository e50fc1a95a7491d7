/**
 * The size rule: a source file longer than `MAX_SOURCE_LINES` must say why
 * at its top, with a comment line `// Why this file is long: <reason>`
 * among its first `REASON_WITHIN_LINES` lines.
 */
import { readFileSync } from "node:fs";

/** Source files up to this many lines need no reason. */
export const MAX_SOURCE_LINES = 350;

/** The reason must appear within this many lines from the top. */
export const REASON_WITHIN_LINES = 20;

/** The comment that starts a written reason; the reason itself follows on the same line. */
export const LONG_FILE_MARKER = "// Why this file is long:";

/** What the size rule found about one file. */
export interface FileLength {
  lines: number;
  /** The written reason, when the file has one (trimmed, never empty). */
  reason: string | undefined;
}

/** Counts the lines of `path` (absolute) and reads its written reason, if any. */
export function measureFile(path: string): FileLength {
  const text = readFileSync(path, "utf8");
  const lines = text.split("\n");
  const lineCount = text.endsWith("\n") ? lines.length - 1 : lines.length;
  return { lines: lineCount, reason: findReason(lines.slice(0, REASON_WITHIN_LINES)) };
}

function findReason(top: readonly string[]): string | undefined {
  for (const line of top) {
    const trimmed = line.trim();
    if (!trimmed.startsWith(LONG_FILE_MARKER)) continue;
    const reason = trimmed.slice(LONG_FILE_MARKER.length).trim();
    if (reason.length > 0) return reason;
  }
  return undefined;
}
