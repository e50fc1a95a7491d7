/**
 * Lists the public names of a package entry file (its `index.ts`): every
 * value and type it exports, following re-exports, sorted. Each package's
 * public-surface test compares this list with the expected one written in the
 * test, so a name is added to or removed from the public API only on purpose.
 *
 * Uses the TypeScript compiler (already a dev dependency of the workspace),
 * so types count as much as values.
 */
import ts from "typescript";

/**
 * The exported names of `indexFile`, sorted, types included.
 *
 * Resolves workspace packages with the `source` condition, like the tests do.
 * Throws when the file cannot be read as a module.
 */
export function listPublicNames(indexFile: string): string[] {
  const program = ts.createProgram([indexFile], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    customConditions: ["source"],
    allowJs: false,
    noEmit: true,
    skipLibCheck: true,
    experimentalDecorators: false,
  });
  const source = program.getSourceFile(indexFile);
  if (!source) throw new Error(`listPublicNames: cannot read ${indexFile}`);
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`listPublicNames: ${indexFile} is not a module`);
  return checker
    .getExportsOfModule(moduleSymbol)
    .map((symbol) => symbol.getName())
    .sort();
}
