/**
 * The workspace as the structure check sees it: its packages (from
 * `pnpm-workspace.yaml`), the layer of each, and the TypeScript files each
 * holds.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

/**
 * The library layers, lowest first. A package may import only packages on a
 * lower layer. Any other package under `packages/` sits on the layer above
 * `@turnkit/agent-runtime`; one that builds on another of those gets its own
 * row here, so the order between them is written down. Everything outside
 * `packages/` (examples, bench, conformance, fuzz, scripts) is an application
 * of the library: it may import any library package, and no other
 * application.
 */
export const LIBRARY_LAYERS: readonly (readonly string[])[] = [
  ["@turnkit/protocol"],
  ["@turnkit/agent-loop"],
  ["@turnkit/agent-core"],
  ["@turnkit/agent-runtime"],
];

/** Directory names never scanned: installed and built files, and the structure check's own test fixtures. */
const SKIPPED_DIRECTORIES = new Set(["node_modules", "dist", "fixtures"]);

/** One workspace package. */
export interface WorkspacePackage {
  /** `name` from its package.json. */
  name: string;
  /** Its directory, relative to the workspace root, with `/` separators. */
  dir: string;
  /** Subpaths its `exports` allows (`"."`, `"./testing"`); importing any other subpath is a deep import. */
  exportedSubpaths: readonly string[];
  /**
   * The TypeScript source of each exported subpath that has one (its
   * `source` condition, or the subpath's value when that is a plain `.ts`
   * path), relative to the workspace root. Subpaths with built files only
   * are left out.
   */
  entrySources: readonly EntrySource[];
  /** Its place in the layer order: lower layers are imported by higher ones, never the other way round. */
  layer: number;
  /** A short description of the layer, for messages. */
  layerName: string;
}

/** One public entry of a package, by subpath and source file. */
export interface EntrySource {
  /** The subpath as its `exports` writes it (`"."`, `"./testing"`). */
  subpath: string;
  /** Its source file, relative to the workspace root, with `/` separators. */
  file: string;
}

/** A TypeScript file of the workspace. */
export interface WorkspaceFile {
  /** Path relative to the workspace root, with `/` separators. */
  path: string;
  /** The package that holds it. */
  owner: WorkspacePackage;
  /** True when it sits in the package's `src/` folder; false for tests and other files. */
  isSource: boolean;
}

/**
 * Reads the package list of `pnpm-workspace.yaml` (entries `dir` or
 * `dir/*`) and each package's package.json. Throws when the file is missing
 * or an entry uses another glob form.
 */
export function readWorkspacePackages(root: string): WorkspacePackage[] {
  const yamlPath = join(root, "pnpm-workspace.yaml");
  if (!existsSync(yamlPath)) throw new Error(`check:structure: no pnpm-workspace.yaml in ${root}`);
  const packages: WorkspacePackage[] = [];
  for (const pattern of workspacePatterns(readFileSync(yamlPath, "utf8"))) {
    for (const dir of expandPattern(root, pattern)) {
      const manifestPath = join(root, dir, "package.json");
      if (!existsSync(manifestPath)) continue;
      const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
        name?: string;
        exports?: Record<string, unknown>;
      };
      if (typeof manifest.name !== "string") throw new Error(`check:structure: ${dir}/package.json has no name`);
      const exports = manifest.exports ?? {};
      packages.push({
        name: manifest.name,
        dir,
        exportedSubpaths: Object.keys(exports),
        entrySources: entrySourcesOf(dir, exports),
        ...layerOf(manifest.name, dir),
      });
    }
  }
  return packages;
}

/** Every `.ts` / `.tsx` / `.mts` file of every package (declaration files excluded), sorted by path. */
export function listWorkspaceFiles(root: string, packages: readonly WorkspacePackage[]): WorkspaceFile[] {
  const files: WorkspaceFile[] = [];
  for (const owner of packages) {
    for (const path of walk(root, owner.dir)) {
      files.push({ path, owner, isSource: path.startsWith(`${owner.dir}/src/`) });
    }
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

function entrySourcesOf(dir: string, exports: Record<string, unknown>): EntrySource[] {
  const entries: EntrySource[] = [];
  for (const [subpath, target] of Object.entries(exports)) {
    const source = typeof target === "string" ? target : (target as { source?: unknown } | null)?.source;
    if (typeof source === "string" && /\.(ts|tsx|mts)$/.test(source))
      entries.push({ subpath, file: join(dir, source).split(sep).join("/") });
  }
  return entries;
}

function layerOf(name: string, dir: string): { layer: number; layerName: string } {
  const index = LIBRARY_LAYERS.findIndex((row) => row.includes(name));
  if (index >= 0) return { layer: index, layerName: name };
  if (dir.startsWith("packages/"))
    return { layer: LIBRARY_LAYERS.length, layerName: "a package above @turnkit/agent-runtime" };
  return { layer: LIBRARY_LAYERS.length + 1, layerName: "an application (example, bench, suite or script)" };
}

function workspacePatterns(yaml: string): string[] {
  const patterns: string[] = [];
  let inPackages = false;
  for (const line of yaml.split("\n")) {
    if (/^\S/.test(line)) inPackages = line.startsWith("packages:");
    const entry = /^\s+-\s+["']?([^"'\s#]+)["']?/.exec(line);
    if (inPackages && entry) patterns.push(entry[1]!);
  }
  return patterns;
}

function expandPattern(root: string, pattern: string): string[] {
  if (!pattern.includes("*")) return [pattern];
  if (!pattern.endsWith("/*") || pattern.slice(0, -2).includes("*")) {
    throw new Error(`check:structure: workspace pattern "${pattern}" is not "dir" or "dir/*"`);
  }
  const parent = pattern.slice(0, -2);
  if (!existsSync(join(root, parent))) return [];
  return readdirSync(join(root, parent))
    .filter((entry) => statSync(join(root, parent, entry)).isDirectory())
    .map((entry) => `${parent}/${entry}`);
}

function walk(root: string, dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRECTORIES.has(entry.name) && !entry.name.startsWith(".")) found.push(...walk(root, path));
    } else if (/\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      found.push(path);
    }
  }
  return found;
}

/** `path` relative to `root`, with `/` separators on every platform. */
export function toWorkspacePath(root: string, path: string): string {
  return relative(root, path).split(sep).join("/");
}
