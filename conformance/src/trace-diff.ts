import type { Trace } from "./trace-normaliser.js";

/** One line of a trace diff: in both, only on the left, or only on the right. */
export type DiffLine = { kind: "same" | "left" | "right"; text: string };

/**
 * Line diff of two traces by longest common subsequence: the smallest set
 * of lines to drop from `left` and add from `right`. Quadratic, which is
 * fine for traces of a few hundred lines.
 */
export function diffTraces(left: Trace, right: Trace): DiffLine[] {
  const rows = left.length;
  const columns = right.length;
  // common[i][j]: length of the LCS of left[i..] and right[j..].
  const common: number[][] = Array.from({ length: rows + 1 }, () => new Array<number>(columns + 1).fill(0));
  for (let i = rows - 1; i >= 0; i -= 1) {
    for (let j = columns - 1; j >= 0; j -= 1) {
      common[i][j] = left[i] === right[j] ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < rows || j < columns) {
    if (i < rows && j < columns && left[i] === right[j]) {
      lines.push({ kind: "same", text: left[i] });
      i += 1;
      j += 1;
    } else if (j < columns && (i === rows || common[i][j + 1] >= common[i + 1][j])) {
      lines.push({ kind: "right", text: right[j] });
      j += 1;
    } else {
      lines.push({ kind: "left", text: left[i] });
      i += 1;
    }
  }
  return lines;
}

/**
 * A readable unified diff: `-` lines only in `left`, `+` lines only in
 * `right`, two-space lines in both. Runs of more than `context` equal lines
 * between changes are folded to `  … N equal lines`. Equal traces give a
 * single line saying so.
 */
export function formatTraceDiff(
  left: Trace,
  right: Trace,
  labels: { left: string; right: string },
  context = 3,
): string {
  const lines = diffTraces(left, right);
  const header = `--- ${labels.left}\n+++ ${labels.right}`;
  if (lines.every((line) => line.kind === "same")) return `${header}\n  (traces are identical, ${left.length} lines)`;
  const changed = lines.map((line) => line.kind !== "same");
  const near = (index: number) => {
    for (let offset = -context; offset <= context; offset += 1) if (changed[index + offset]) return true;
    return false;
  };
  const out: string[] = [header];
  let folded = 0;
  lines.forEach((line, index) => {
    if (line.kind === "same" && !near(index)) {
      folded += 1;
      return;
    }
    if (folded > 0) out.push(`  … ${folded} equal line${folded === 1 ? "" : "s"}`);
    folded = 0;
    out.push(`${line.kind === "same" ? " " : line.kind === "left" ? "-" : "+"} ${line.text}`);
  });
  if (folded > 0) out.push(`  … ${folded} equal line${folded === 1 ? "" : "s"}`);
  return out.join("\n");
}

/** A trace as a numbered listing, for reports. */
export function formatTrace(trace: Trace): string {
  const width = String(trace.length).length;
  return trace.map((line, index) => `${String(index + 1).padStart(width)}  ${line}`).join("\n");
}
