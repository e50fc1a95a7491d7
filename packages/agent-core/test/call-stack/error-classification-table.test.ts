/**
 * The classification table of `docs/error-classification.md` is the
 * contract: this test reads it, and checks that every row has real provider
 * failures (`fixtures/provider-errors.ts`) that `classifyError` puts on that
 * row's code and retry decision. A row changed in the docs without the code,
 * or the other way round, fails here.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { classifyError, type ClassifiedError } from "../../src/call-stack/classify-error.js";
import { assistantMessage } from "@turnkit/agent-loop/testing";
import { PROVIDER_ERROR_FIXTURES, type ProviderErrorFixture } from "./fixtures/provider-errors.js";

interface TableRow {
  row: string;
  code: string;
  retried: boolean;
}

function readTable(): TableRow[] {
  const doc = readFileSync(new URL("../../docs/error-classification.md", import.meta.url), "utf8");
  const section = /<!-- classification-table:start -->([\s\S]*?)<!-- classification-table:end -->/.exec(doc)?.[1];
  if (!section) throw new Error("docs/error-classification.md has no classification table");
  const cells = (line: string) =>
    line
      .split("|")
      .slice(1, -1)
      .map((cell) => cell.trim());
  const lines = section.trim().split("\n");
  const header = cells(lines[0]!);
  expect(header).toEqual(["Row", "Status", "What the failure says", "Code", "Retried"]);
  return lines.slice(2).map((line) => {
    const [row, , , code, retried] = cells(line);
    return { row: unquote(row!), code: unquote(code!), retried: retried === "yes" };
  });
}

function unquote(cell: string): string {
  return cell.replace(/`/g, "");
}

/** Every way a fixture reaches `classifyError`: text both bare and as a failed message. */
function classifications(fixture: ProviderErrorFixture): Array<[string, ClassifiedError]> {
  const { input } = fixture;
  if ("text" in input) {
    const message = {
      ...assistantMessage([], { timestamp: 0 }),
      stopReason: "error" as const,
      errorMessage: input.text,
    };
    return [
      ["text", classifyError(input.text)],
      ["failed message", classifyError(message)],
    ];
  }
  if ("message" in input) return [["message", classifyError(input.message)]];
  return [["thrown", classifyError(input.thrown)]];
}

const table = readTable();

describe("the classification table in docs/error-classification.md", () => {
  it("has rows, each with a unique name, a known code and at least one real failure", () => {
    expect(table.length).toBeGreaterThan(20);
    expect(new Set(table.map((row) => row.row)).size).toBe(table.length);
    for (const row of table) {
      expect(
        PROVIDER_ERROR_FIXTURES.filter((fixture) => fixture.row === row.row),
        `fixtures of row ${row.row}`,
      ).not.toHaveLength(0);
    }
    const names = new Set(table.map((row) => row.row));
    for (const fixture of PROVIDER_ERROR_FIXTURES)
      expect(names, `row of fixture "${fixture.source}"`).toContain(fixture.row);
  });

  it.each(PROVIDER_ERROR_FIXTURES.map((fixture) => [fixture.row, fixture.source, fixture] as const))(
    "row %s: %s",
    (rowName, _source, fixture) => {
      const row = table.find((candidate) => candidate.row === rowName)!;
      for (const [how, classified] of classifications(fixture)) {
        const context = `${how}: ${JSON.stringify(classified)}`;
        if (row.code === "aborted") {
          expect(classified.aborted, context).toBe(true);
        } else {
          expect(classified.aborted, context).toBeUndefined();
          expect(classified.code, context).toBe(row.code);
        }
        expect(classified.retryable, context).toBe(row.retried);
        if (fixture.also) expect(classified, context).toMatchObject(fixture.also);
      }
    },
  );
});
