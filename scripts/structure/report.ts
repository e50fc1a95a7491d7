/** Prints a structure report as a plain list, one problem per line, grouped by rule. */
import { LONG_FILE_MARKER, MAX_SOURCE_LINES } from "./file-length.js";
import type { ImportProblem, StructureReport } from "./check.js";

/** The report as text: a summary line, then one section per broken rule. */
export function formatReport(report: StructureReport): string {
  const problems =
    report.cycles.length + report.upwardImports.length + report.deepImports.length + report.longFiles.length;
  const lines = [
    problems === 0
      ? `check:structure: ${report.filesChecked} files, no problems`
      : `check:structure: ${report.filesChecked} files, ${problems} problem${problems === 1 ? "" : "s"}`,
  ];
  const section = (title: string, entries: readonly string[]) => {
    if (entries.length === 0) return;
    lines.push("", `${title} (${entries.length}):`, ...entries.map((entry) => `  ${entry}`));
  };
  section(
    "import cycles",
    report.cycles.map((cycle) => {
      const more =
        cycle.files.length > cycle.path.length - 1
          ? ` (${cycle.files.length} files in this cycle: ${cycle.files.join(", ")})`
          : "";
      return `${cycle.path.join(" -> ")}${more}`;
    }),
  );
  section("upward imports between packages", report.upwardImports.map(importLine));
  section("deep imports into another package", report.deepImports.map(importLine));
  section(
    `source files over ${MAX_SOURCE_LINES} lines without "${LONG_FILE_MARKER} ..." at the top`,
    report.longFiles.map((entry) => `${entry.file}: ${entry.lines} lines`),
  );
  return lines.join("\n");
}

function importLine(problem: ImportProblem): string {
  return `${problem.file}:${problem.line} "${problem.specifier}": ${problem.reason}`;
}
