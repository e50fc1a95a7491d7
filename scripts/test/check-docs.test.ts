/**
 * The doc-comment check on a small workspace under `fixtures/docs`: a
 * library package whose entries export documented and undocumented names
 * through re-export chains, type aliases, a value and a type of one name,
 * overloads, comments citing an outside document, and an installed
 * package's type; a second package that passes;
 * and an application whose undocumented export is not checked.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type DocsReport, checkDocs, isClean } from "../docs/check.js";
import { runCheckDocs } from "../docs/cli.js";
import { formatDocsReport } from "../docs/report.js";

const here = dirname(fileURLToPath(import.meta.url));
const workspace = join(here, "fixtures", "docs");
const at = (entry: string, name: string, place: string, comment?: string) => {
  const [file, line] = place.split(":");
  return {
    entry,
    name,
    file: `packages/lib/src/${file}`,
    line: Number(line),
    ...(comment === undefined ? {} : { comment }),
  };
};

/** Compiling the fixture takes a few seconds on a loaded machine. */
const COMPILE_TIMEOUT_MS = 60_000;

let plainReport: DocsReport | undefined;
/** The report without members, compiled once for the tests that read it. */
const plain = () => (plainReport ??= checkDocs(workspace));

describe("check:docs", () => {
  it(
    "fails names with no doc comment, wherever the re-exports lead, and only the overload signatures' comments count",
    () => {
      const report = plain();
      expect(report.missing).toEqual([
        at("@fixture/lib", "bare", "undocumented.ts:1"),
        at("@fixture/lib", "Bare", "undocumented.ts:3"),
        at("@fixture/lib", "format", "overloads.ts:8"),
        at("@fixture/lib", "lineCommented", "undocumented.ts:15"),
        at("@fixture/lib", "undocumentedThroughChain", "deep.ts:4"),
        at("@fixture/lib/testing", "makeFake", "testing/index.ts:3"),
      ]);
      expect(isClean(report)).toBe(false);
    },
    COMPILE_TIMEOUT_MS,
  );

  it(
    "fails comments under four words, tags not counted, and passes the rest",
    () => {
      const report = plain();
      expect(report.tooShort).toEqual([
        at("@fixture/lib", "SHORT", "undocumented.ts:6", "The options."),
        at("@fixture/lib", "ShortOptions", "undocumented.ts:12", ""),
      ]);
      // Documented: a class, an interface, a const (comment above the statement), an async
      // function, a union type, a const and a type of one name (comment on the const only),
      // an intersection type, a renamed re-export two files away, a first overload signature.
      expect(report.namesChecked).toBe(24);
      expect(report.entriesChecked).toBe(3);
      expect(report.external).toEqual(["@fixture/lib: CompilerOptions"]);
      expect(report.members).toEqual([]);
    },
    COMPILE_TIMEOUT_MS,
  );

  it(
    "fails comments that name an outside document's id instead of saying the behaviour, not words that only look alike",
    () => {
      expect(plain().outsideReferences).toEqual([
        at("@fixture/lib", "endRun", "references.ts:2", "L9"),
        at("@fixture/lib", "validate", "references.ts:5", "SPEC K3"),
      ]);
    },
    COMPILE_TIMEOUT_MS,
  );

  it(
    "with properties, lists public members without a doc comment but not private ones, union variants' fields or computed names",
    () => {
      const report = checkDocs(workspace, { properties: true });
      expect(report.members).toEqual([
        at("@fixture/lib", "Pair.right", "aliases.ts:12"),
        at("@fixture/lib", "Pair.extra", "aliases.ts:13"),
        at("@fixture/lib", "Runner.limit", "documented.ts:7"),
        at("@fixture/lib", "Runner.drain", "documented.ts:17"),
        at("@fixture/lib", "RunOptions.retries", "documented.ts:26"),
        at("@fixture/lib", "RunOptions.empty", "documented.ts:28", ""),
      ]);
      expect(report.missing).toHaveLength(6);
    },
    COMPILE_TIMEOUT_MS,
  );

  it(
    "prints one line per name, grouped by problem",
    () => {
      expect(formatDocsReport(plain())).toBe(
        [
          "check:docs: 3 entries, 24 public names (1 declared in installed packages, not checked), 10 problems",
          "",
          "no doc comment (6):",
          "  @fixture/lib: bare (packages/lib/src/undocumented.ts:1)",
          "  @fixture/lib: Bare (packages/lib/src/undocumented.ts:3)",
          "  @fixture/lib: format (packages/lib/src/overloads.ts:8)",
          "  @fixture/lib: lineCommented (packages/lib/src/undocumented.ts:15)",
          "  @fixture/lib: undocumentedThroughChain (packages/lib/src/deep.ts:4)",
          "  @fixture/lib/testing: makeFake (packages/lib/src/testing/index.ts:3)",
          "",
          "doc comment under 4 words (2):",
          '  @fixture/lib: SHORT (packages/lib/src/undocumented.ts:6) "The options."',
          "  @fixture/lib: ShortOptions (packages/lib/src/undocumented.ts:12) (empty)",
          "",
          "doc comment names an outside document instead of saying the behaviour (2):",
          '  @fixture/lib: endRun (packages/lib/src/references.ts:2) "L9"',
          '  @fixture/lib: validate (packages/lib/src/references.ts:5) "SPEC K3"',
        ].join("\n"),
      );
    },
    COMPILE_TIMEOUT_MS,
  );

  it(
    "as the command: exit code 1 with the list, members only with --properties, and 2 on an unknown option",
    () => {
      const run = (...args: string[]) => {
        const { code, stdout, stderr } = runCheckDocs(args, here);
        return { code, output: stdout + stderr };
      };
      const withoutMembers = run(workspace);
      expect(withoutMembers.code).toBe(1);
      expect(withoutMembers.output).toContain(
        "no doc comment (6):\n  @fixture/lib: bare (packages/lib/src/undocumented.ts:1)",
      );
      expect(withoutMembers.output).not.toContain("members without a doc comment");
      const withMembers = run("--properties", workspace);
      expect(withMembers.code).toBe(1);
      expect(withMembers.output).toContain(
        "members without a doc comment (reported, not failing) (6):\n  @fixture/lib: Pair.right (packages/lib/src/aliases.ts:12)",
      );
      expect(run("--members", workspace)).toEqual({
        code: 2,
        output: "check:docs: unknown option --members (the only option is --properties)\n",
      });
    },
    COMPILE_TIMEOUT_MS,
  );
});
