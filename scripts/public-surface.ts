/**
 * Lists the public names of a package entry file (its `index.ts`): every
 * value and type it exports, following re-exports, sorted. Each package's
 * public-surface test compares this list with the expected one written in the
 * test, so a name is added to or removed from the public API only on purpose.
 *
 * Uses the TypeScript compiler (already a dev dependency of the workspace),
 * so types count as much as values.
 */
import { readFileSync } from "node:fs";
import ts from "typescript";

/** How every entry is compiled: workspace packages resolve through their `source` condition, like the tests do. */
const ENTRY_COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  customConditions: ["source"],
  noEmit: true,
  skipLibCheck: true,
};

/** Entry files compiled together in one TypeScript program, ready to be asked for their exports. */
export interface CompiledEntries {
  /** The program's type checker, for following aliases and reading declarations. */
  checker: ts.TypeChecker;
  /**
   * The export symbols of one of the compiled entry files, as the entry
   * declares them (a re-export is an alias; `checker.getAliasedSymbol` gives
   * its target). Throws when the file was not compiled or is not a module.
   */
  exportsOf(entryFile: string): ts.Symbol[];
}

/** What {@link compileEntries} reads besides the workspace's own sources. */
export interface CompileScope {
  /**
   * `false`: installed packages' declarations and the default library are
   * not read (for a package entry, over 1,300 files of pi-ai, the provider
   * SDKs and @types/node, most of the compile's time); names re-exported
   * from installed packages then resolve to nothing. Default `true`.
   */
  installedPackages?: boolean;
}

/**
 * Compiles `entryFiles` in one program (one compile for several entries is
 * much faster than one each). Reads files only. Errors name `caller`, the
 * function the user called.
 */
export function compileEntries(
  entryFiles: readonly string[],
  caller: string,
  scope: CompileScope = {},
): CompiledEntries {
  const installed = scope.installedPackages ?? true;
  const options = installed ? ENTRY_COMPILER_OPTIONS : { ...ENTRY_COMPILER_OPTIONS, noLib: true, types: [] };
  const host = ts.createCompilerHost(options);
  if (!installed) {
    const readSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (fileName, ...rest) =>
      fileName.includes("/node_modules/") ? undefined : readSourceFile(fileName, ...rest);
  }
  const program = ts.createProgram([...entryFiles], options, host);
  const checker = program.getTypeChecker();
  return {
    checker,
    exportsOf(entryFile) {
      const source = program.getSourceFile(entryFile);
      if (!source) throw new Error(`${caller}: cannot read ${entryFile}`);
      const moduleSymbol = checker.getSymbolAtLocation(source);
      if (!moduleSymbol) throw new Error(`${caller}: ${entryFile} is not a module`);
      return checker.getExportsOfModule(moduleSymbol);
    },
  };
}

/**
 * The exported names of `indexFile`, sorted, types included.
 *
 * Resolves workspace packages with the `source` condition, like the tests do.
 * Throws when the file cannot be read as a module.
 */
export function listPublicNames(indexFile: string): string[] {
  return compileEntries([indexFile], "listPublicNames")
    .exportsOf(indexFile)
    .map((symbol) => symbol.getName())
    .sort();
}

/** A package entry's public names, split by what they can be used as. */
export interface PublicSurface {
  /** Names usable at run time (functions, classes, constants, enums), sorted. */
  values: string[];
  /** Names usable as types (interfaces, type aliases, classes, enums), sorted. */
  types: string[];
}

/**
 * The exported names of `indexFile`, split into values and types: a class
 * or an enum is in both lists, an `export type { … }` of a value only in
 * `types`. Every exported name is in at least one list. A test that compares both lists fails when a name is added or
 * removed, and when a value export becomes type-only or the other way round.
 *
 * Resolves workspace packages with the `source` condition, like the tests do.
 * Throws when the file cannot be read as a module.
 */
export function listPublicSurface(indexFile: string): PublicSurface {
  // Most entries export only the workspace's own declarations: try without installed packages first.
  return surfaceOf(indexFile, false) ?? surfaceOf(indexFile, true)!;
}

/** The surface, or `undefined` when an export resolves to nothing in the compile's scope. */
function surfaceOf(indexFile: string, installedPackages: boolean): PublicSurface | undefined {
  const { checker, exportsOf } = compileEntries([indexFile], "listPublicSurface", { installedPackages });
  const surface: PublicSurface = { values: [], types: [] };
  for (const exported of exportsOf(indexFile)) {
    const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    if (!installedPackages && !target.declarations?.length) return undefined;
    const typeOnly = isTypeOnlyAlias(checker, exported);
    if (target.flags & ts.SymbolFlags.Value && !typeOnly) surface.values.push(exported.getName());
    // A type-only export of a value is still public: importers use it with `typeof`.
    if (target.flags & ts.SymbolFlags.Type || typeOnly) surface.types.push(exported.getName());
  }
  surface.values.sort();
  surface.types.sort();
  return surface;
}

/** True when some link of the re-export chain is `export type` / `import type`. */
function isTypeOnlyAlias(checker: ts.TypeChecker, symbol: ts.Symbol): boolean {
  for (
    let link: ts.Symbol | undefined = symbol;
    link && link.flags & ts.SymbolFlags.Alias;
    link = checker.getImmediateAliasedSymbol(link)
  ) {
    for (const declaration of link.declarations ?? []) {
      if (ts.isTypeOnlyImportOrExportDeclaration(declaration)) return true;
    }
  }
  return false;
}

/**
 * The public names a README section mentions (by default `## API`): every
 * backticked identifier in it, alone or followed by a call or type
 * arguments (`` `createAgentRuntime(options)` ``, `` `Promise<Registry>` ``,
 * whose type arguments count as names too), sorted and without repeats. Dotted names (`` `runtime.dispose()` ``, a
 * member) and anything else in backticks are not names. The section ends at
 * the next heading of the same or a higher level. Throws when the README has
 * no such section.
 */
export function listReadmeApiNames(readmeFile: string, heading = "## API"): string[] {
  const text = readFileSync(readmeFile, "utf8");
  const lines = text.split("\n");
  const start = lines.findIndex((line) => line.trim() === heading);
  if (start < 0) throw new Error(`listReadmeApiNames: ${readmeFile} has no "${heading}" section`);
  const level = heading.indexOf(" ");
  const endsSection = (line: string) => /^#+ /.test(line) && line.indexOf(" ") <= level;
  const after = lines.slice(start + 1);
  const end = after.findIndex(endsSection);
  const section = (end < 0 ? after : after.slice(0, end)).join("\n");
  const names = new Set<string>();
  for (const match of section.matchAll(/`([A-Za-z_$][\w$]*)(?:\((.*?)\)|<(.*?)>)?`/g)) {
    names.add(match[1]!);
    // Type arguments are names too (`Promise<AssembledTurn>`); call arguments are parameter names.
    for (const argument of match[3]?.match(/[A-Za-z_$][\w$]*/g) ?? []) names.add(argument);
  }
  return [...names].sort();
}
