/**
 * Checks that every public name of every library package has a doc comment
 * that says something. It reads files only; it never changes them.
 */
import { join } from "node:path";
import ts from "typescript";
import { compileEntries } from "../public-surface.js";
import { readWorkspacePackages, toWorkspacePath } from "../structure/workspace.js";
import {
  type DocComment,
  MIN_DOC_WORDS,
  MIN_MEMBER_DOC_WORDS,
  findOutsideReference,
  isSufficient,
  readDocComment,
} from "./doc-comment.js";
import { listMemberGroups, withoutOverloadImplementations } from "./members.js";

/** One public name (or member) whose doc comment is missing or too short. */
export interface DocProblem {
  /** The import specifier of the entry that exports it (`@turnkit/agent-loop/testing`). */
  entry: string;
  /** The exported name, or `Type.member` for a member. */
  name: string;
  /** The file of its first declaration, relative to the workspace root. */
  file: string;
  /** The line of that declaration, from 1. */
  line: number;
  /**
   * The description of its best doc comment (the one with most words), or
   * undefined when it has none; for an outside reference, the id found.
   */
  comment?: string;
}

/** Everything the check found; `missing` and `tooShort` empty means the workspace passes. */
export interface DocsReport {
  /** Public names none of whose declarations has a doc comment. */
  missing: DocProblem[];
  /** Public names whose longest doc comment is under `MIN_DOC_WORDS` words. */
  tooShort: DocProblem[];
  /** Public names whose doc comment names an id of an outside document (`behaviour L9`, `SPEC X3`, `issue 12`). */
  outsideReferences: DocProblem[];
  /**
   * Members of public interfaces, object types and classes with no doc
   * comment (or an empty one). Listed only when asked for
   * (`properties: true`); they never make the check fail.
   */
  members: DocProblem[];
  /** Public names declared outside the workspace (an installed package's types), as `entry: name`; not checked. */
  external: string[];
  /** How many entries and public names were read, for the summary line. */
  entriesChecked: number;
  namesChecked: number;
}

/** What to check besides the public names themselves. */
export interface CheckDocsOptions {
  /** Also list members of public types without a doc comment (report only). Default false. */
  properties?: boolean;
}

/**
 * Checks every entry (each `exports` subpath with a TypeScript `source`) of
 * every package under `packages/` of the workspace at `root`. Each exported
 * name is followed through re-exports to its declarations; it passes when
 * one of them (overload implementations aside) has a doc comment of at least
 * `MIN_DOC_WORDS` words and none of them names an outside document's id. A name exported by two entries is checked, and
 * reported, under each. Throws when `root` has no `pnpm-workspace.yaml` or
 * an entry cannot be compiled as a module.
 */
export function checkDocs(root: string, options: CheckDocsOptions = {}): DocsReport {
  const entries = readWorkspacePackages(root)
    .filter((pkg) => pkg.dir.startsWith("packages/"))
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((pkg) =>
      pkg.entrySources.map((entry) => ({
        specifier: entry.subpath === "." ? pkg.name : `${pkg.name}/${entry.subpath.replace(/^\.\//, "")}`,
        file: join(root, entry.file),
      })),
    );
  const { checker, exportsOf } = compileEntries(
    entries.map((entry) => entry.file),
    "check:docs",
  );
  const report: DocsReport = {
    missing: [],
    tooShort: [],
    outsideReferences: [],
    members: [],
    external: [],
    entriesChecked: entries.length,
    namesChecked: 0,
  };

  for (const entry of entries) {
    const exported = [...exportsOf(entry.file)].sort((a, b) => a.getName().localeCompare(b.getName()));
    for (const symbol of exported) {
      report.namesChecked += 1;
      const name = symbol.getName();
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      // An export that resolves to nothing (a broken re-export) is judged, and located, by its export statement.
      const declarations = withoutOverloadImplementations(
        target.declarations?.length ? target.declarations : (symbol.declarations ?? []),
      );
      const located = (declaration: ts.Declaration, label: string, comment?: DocComment): DocProblem => ({
        entry: entry.specifier,
        name: label,
        ...locate(root, declaration),
        ...(comment ? { comment: comment.text } : {}),
      });
      if (declarations.length > 0 && declarations.every((declaration) => isOutside(root, declaration))) {
        report.external.push(`${entry.specifier}: ${name}`);
        continue;
      }
      const judged = judge(declarations, MIN_DOC_WORDS);
      if (judged.problem)
        (judged.problem === "missing" ? report.missing : report.tooShort).push(located(judged.at, name, judged.best));
      const reference = outsideReferenceOf(declarations);
      if (reference) report.outsideReferences.push({ ...located(reference.at, name), comment: reference.id });
      if (!options.properties) continue;
      for (const declaration of declarations) {
        for (const group of listMemberGroups(declaration)) {
          const member = judge(group.declarations, MIN_MEMBER_DOC_WORDS);
          if (member.problem) report.members.push(located(member.at, `${name}.${group.name}`, member.best));
        }
      }
    }
  }
  return report;
}

/** True when the report holds no problem of a public name (members do not count). */
export function isClean(report: DocsReport): boolean {
  return countProblems(report) === 0;
}

/** How many public names failed, counted once per problem (members do not count). */
export function countProblems(report: DocsReport): number {
  return report.missing.length + report.tooShort.length + report.outsideReferences.length;
}

/** The first declaration whose doc comment names an outside document, with the id found. */
function outsideReferenceOf(declarations: readonly ts.Declaration[]): { at: ts.Declaration; id: string } | undefined {
  for (const declaration of declarations) {
    const comment = readDocComment(declaration);
    const id = comment && findOutsideReference(comment);
    if (id) return { at: declaration, id };
  }
  return undefined;
}

type Judgement = { problem?: "missing" | "tooShort"; at: ts.Declaration; best?: DocComment };

/** Judges a group of declarations of one name by its longest doc comment. */
function judge(declarations: readonly ts.Declaration[], minWords: number): Judgement {
  let best: DocComment | undefined;
  for (const declaration of declarations) {
    const comment = readDocComment(declaration);
    if (comment && (!best || comment.words > best.words)) best = comment;
  }
  const at = declarations[0]!;
  if (isSufficient(best, minWords)) return { at };
  return best ? { problem: "tooShort", at, best } : { problem: "missing", at };
}

function locate(root: string, declaration: ts.Declaration): { file: string; line: number } {
  const source = declaration.getSourceFile();
  const start = ts.isSourceFile(declaration) ? 0 : declaration.getStart(source);
  return { file: toWorkspacePath(root, source.fileName), line: source.getLineAndCharacterOfPosition(start).line + 1 };
}

function isOutside(root: string, declaration: ts.Declaration): boolean {
  const path = toWorkspacePath(root, declaration.getSourceFile().fileName);
  return path.startsWith("../") || path.split("/").includes("node_modules");
}
