/** One row of the conformance summary: a scenario on one surface and how the two traces compared. */
export interface SummaryRow {
  scenario: string;
  surface: string;
  /** `identical`, `documented difference (behaviour L9)`, `suspected bug (skipped)`, `FAILED`. */
  result: string;
}

/** A plain-text table with aligned columns, for the test log. */
export function formatSummaryTable(rows: readonly SummaryRow[]): string {
  const header: SummaryRow = { scenario: "scenario", surface: "surface", result: "result" };
  const all = [header, ...rows];
  const width = (key: keyof SummaryRow) => Math.max(...all.map((row) => row[key].length));
  const widths = { scenario: width("scenario"), surface: width("surface"), result: width("result") };
  const line = (row: SummaryRow) =>
    `| ${row.scenario.padEnd(widths.scenario)} | ${row.surface.padEnd(widths.surface)} | ${row.result.padEnd(widths.result)} |`;
  const rule = `|${"-".repeat(widths.scenario + 2)}|${"-".repeat(widths.surface + 2)}|${"-".repeat(widths.result + 2)}|`;
  return [line(header), rule, ...rows.map(line)].join("\n");
}
