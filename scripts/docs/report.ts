/** Prints a doc-comment report as a plain list, one name per line, grouped by problem. */
import { type DocProblem, type DocsReport, countProblems } from "./check.js";
import { MIN_DOC_WORDS } from "./doc-comment.js";

/**
 * The report as text: a summary line, then one section per problem, each
 * line `entry: name (file:line)`, a too-short comment quoted after it
 * (`(empty)` when it has tags only or nothing), an outside document's id
 * quoted likewise. The members section (report only) comes last and is printed only when the
 * report has members, that is when they were asked for.
 */
export function formatDocsReport(report: DocsReport): string {
  const problems = countProblems(report);
  const counted = `${report.entriesChecked} entr${report.entriesChecked === 1 ? "y" : "ies"}, ${report.namesChecked} public names`;
  const outside =
    report.external.length === 0 ? "" : ` (${report.external.length} declared in installed packages, not checked)`;
  const lines = [
    `check:docs: ${counted}${outside}, ${problems === 0 ? "no problems" : `${problems} problem${problems === 1 ? "" : "s"}`}`,
  ];
  const section = (title: string, entries: readonly DocProblem[]) => {
    if (entries.length === 0) return;
    lines.push("", `${title} (${entries.length}):`, ...entries.map((entry) => `  ${problemLine(entry)}`));
  };
  section("no doc comment", report.missing);
  section(`doc comment under ${MIN_DOC_WORDS} words`, report.tooShort);
  section("doc comment names an outside document instead of saying the behaviour", report.outsideReferences);
  section("members without a doc comment (reported, not failing)", report.members);
  return lines.join("\n");
}

function problemLine(problem: DocProblem): string {
  const quoted = problem.comment === undefined ? "" : problem.comment === "" ? " (empty)" : ` "${problem.comment}"`;
  return `${problem.entry}: ${problem.name} (${problem.file}:${problem.line})${quoted}`;
}
