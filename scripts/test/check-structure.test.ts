/**
 * The structure check on small workspaces under `fixtures/`, one per rule:
 * each breaks the rule in a known way next to imports and files that are
 * allowed, and the report names exactly the broken ones.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkStructure, isClean } from "../structure/check.js";
import { runCheckStructure } from "../structure/cli.js";
import { formatReport } from "../structure/report.js";

const here = dirname(fileURLToPath(import.meta.url));
const fixture = (name: string) => join(here, "fixtures", name);

describe("check:structure", () => {
  it("passes a workspace whose packages import lower layers through their entry points", () => {
    const report = checkStructure(fixture("clean"));
    expect(isClean(report)).toBe(true);
    expect(report.filesChecked).toBe(5);
    expect(formatReport(report)).toBe("check:structure: 5 files, no problems");
  });

  it("reports each import cycle once, by its shortest path, type-only imports and self-imports included", () => {
    const report = checkStructure(fixture("cycle"));
    expect(report.cycles).toEqual([
      {
        path: [
          "packages/agent-loop/src/options.ts",
          "packages/agent-loop/src/run.ts",
          "packages/agent-loop/src/step.ts",
          "packages/agent-loop/src/options.ts",
        ],
        files: [
          "packages/agent-loop/src/options.ts",
          "packages/agent-loop/src/run.ts",
          "packages/agent-loop/src/step.ts",
        ],
      },
      {
        path: ["packages/protocol/src/self.ts", "packages/protocol/src/self.ts"],
        files: ["packages/protocol/src/self.ts"],
      },
    ]);
    expect(report.upwardImports).toEqual([]);
    expect(report.deepImports).toEqual([]);
    expect(report.longFiles).toEqual([]);
  });

  it("reports an import of a higher layer, and one application importing another, but not a downward import", () => {
    const report = checkStructure(fixture("upward"));
    expect(report.upwardImports).toEqual([
      {
        file: "examples/host/src/main.ts",
        line: 2,
        specifier: "@turnkit/example-other",
        reason:
          "@turnkit/example-host (an application (example, bench, suite or script)) imports @turnkit/example-other, which is on the same layer as it",
      },
      {
        file: "packages/protocol/src/event.ts",
        line: 1,
        specifier: "@turnkit/agent-loop/testing",
        reason: "@turnkit/protocol imports @turnkit/agent-loop, which is above it",
      },
    ]);
    expect(report.cycles).toEqual([]);
    expect(report.deepImports).toEqual([]);
  });

  it("reports a relative import into another package's src and a package subpath its exports do not list", () => {
    const report = checkStructure(fixture("deep"));
    expect(report.deepImports).toEqual([
      {
        file: "packages/agent-loop/src/index.ts",
        line: 1,
        specifier: "../../protocol/src/index.js",
        reason: "reaches into @turnkit/protocol's src; import its entry point instead",
      },
      {
        file: "packages/agent-loop/src/index.ts",
        line: 2,
        specifier: "@turnkit/protocol/src/index.js",
        reason: "@turnkit/protocol exports ., not ./src/index.js",
      },
    ]);
    expect(report.upwardImports).toEqual([]);
  });

  it("reports source files over 350 lines unless a first-lines comment gives the reason; tests and files at the limit pass", () => {
    const report = checkStructure(fixture("long-file"));
    expect(report.longFiles).toEqual([
      { file: "packages/agent-loop/src/empty-reason.ts", lines: 362 },
      { file: "packages/agent-loop/src/long.ts", lines: 351 },
    ]);
    expect(formatReport(report)).toBe(
      [
        "check:structure: 8 files, 2 problems",
        "",
        'source files over 350 lines without "// Why this file is long: ..." at the top (2):',
        "  packages/agent-loop/src/empty-reason.ts: 362 lines",
        "  packages/agent-loop/src/long.ts: 351 lines",
      ].join("\n"),
    );
  });

  it("as the command: exit code 1 with the list, and 0 on a clean workspace", () => {
    const run = (name: string) => {
      const { code, stdout } = runCheckStructure([fixture(name)], here);
      return { code, output: stdout };
    };
    expect(run("clean")).toEqual({ code: 0, output: "check:structure: 5 files, no problems\n" });
    const cycle = run("cycle");
    expect(cycle.code).toBe(1);
    expect(cycle.output).toContain(
      "import cycles (2):\n  packages/agent-loop/src/options.ts -> packages/agent-loop/src/run.ts",
    );
  });
});
