/**
 * The imports of one file, read with the TypeScript parser (no type
 * checking): static imports and re-exports, `import x = require(...)`,
 * `import("...")` calls and `import("...")` types.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import ts from "typescript";

/** One import of a file. */
export interface ImportReference {
  /** The module specifier as written (`"./x.js"`, `"@turnkit/agent-loop/testing"`). */
  specifier: string;
  /** 1-based line of the import. */
  line: number;
  /** True for `import type` / `export type` and imports whose every name is `type`. */
  typeOnly: boolean;
}

/** Reads `path` (absolute) and lists its imports in source order. */
export function readImports(path: string): ImportReference[] {
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
  const found: ImportReference[] = [];
  const add = (specifier: ts.Expression | undefined, typeOnly: boolean) => {
    if (!specifier || !ts.isStringLiteralLike(specifier)) return;
    const line = source.getLineAndCharacterOfPosition(specifier.getStart(source)).line + 1;
    found.push({ specifier: specifier.text, line, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      add(node.moduleSpecifier, isTypeOnlyImport(node.importClause));
    } else if (ts.isExportDeclaration(node)) {
      add(node.moduleSpecifier, node.isTypeOnly || isTypeOnlyNamedExports(node.exportClause));
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal as ts.Expression, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The file a relative specifier names, tried the way the workspace's
 * bundler resolution does: the path itself, `.js` swapped for `.ts`/`.tsx`,
 * an added extension, or the folder's `index.ts`. Undefined for package
 * specifiers and for files that do not exist (JSON, assets).
 */
export function resolveRelative(fromFile: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const base = normalize(join(dirname(fromFile), specifier));
  const stem = base.replace(/\.(js|mjs|jsx)$/, "");
  const candidates = [
    base,
    `${stem}.ts`,
    `${stem}.tsx`,
    `${stem}.mts`,
    join(base, "index.ts"),
    join(base, "index.tsx"),
  ];
  return candidates.find((candidate) => /\.(ts|tsx|mts)$/.test(candidate) && existsSync(candidate));
}

/** Splits a package specifier into the package name and the subpath (`"."` for the entry itself). */
export function splitPackageSpecifier(specifier: string): { name: string; subpath: string } {
  const parts = specifier.split("/");
  const nameLength = specifier.startsWith("@") ? 2 : 1;
  const rest = parts.slice(nameLength).join("/");
  return { name: parts.slice(0, nameLength).join("/"), subpath: rest === "" ? "." : `./${rest}` };
}

function isTypeOnlyImport(clause: ts.ImportClause | undefined): boolean {
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  return (
    !!bindings &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

function isTypeOnlyNamedExports(clause: ts.NamedExportBindings | undefined): boolean {
  return (
    !!clause &&
    ts.isNamedExports(clause) &&
    clause.elements.length > 0 &&
    clause.elements.every((element) => element.isTypeOnly)
  );
}
