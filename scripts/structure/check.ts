/**
 * Runs every structure rule over a workspace and returns what breaks them.
 * It reads files only; it never changes them.
 */
import { join } from "node:path";
import { type ImportCycle, findImportCycles } from "./cycles.js";
import { MAX_SOURCE_LINES, measureFile } from "./file-length.js";
import { readImports, resolveRelative, splitPackageSpecifier } from "./imports.js";
import {
  type WorkspaceFile,
  type WorkspacePackage,
  listWorkspaceFiles,
  readWorkspacePackages,
  toWorkspacePath,
} from "./workspace.js";

/** An import that breaks the layer order or reaches past a package's entry points. */
export interface ImportProblem {
  /** The importing file, relative to the workspace root. */
  file: string;
  line: number;
  specifier: string;
  /** Why it is not allowed, in a sentence. */
  reason: string;
}

/** A source file over the size limit with no written reason at its top. */
export interface LongFileProblem {
  file: string;
  lines: number;
}

/** Everything the check found; all lists empty means the workspace passes. */
export interface StructureReport {
  cycles: ImportCycle[];
  upwardImports: ImportProblem[];
  deepImports: ImportProblem[];
  longFiles: LongFileProblem[];
  /** How many files were read, for the summary line. */
  filesChecked: number;
}

/** Checks the workspace at `root` (the folder holding `pnpm-workspace.yaml`). */
export function checkStructure(root: string): StructureReport {
  const packages = readWorkspacePackages(root);
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));
  const files = listWorkspaceFiles(root, packages);
  const graph = new Map<string, Set<string>>();
  const report: StructureReport = {
    cycles: [],
    upwardImports: [],
    deepImports: [],
    longFiles: [],
    filesChecked: files.length,
  };

  for (const file of files) {
    const edges = new Set<string>();
    graph.set(file.path, edges);
    for (const reference of readImports(join(root, file.path))) {
      const problem = { file: file.path, line: reference.line, specifier: reference.specifier };
      const resolved = resolveRelative(join(root, file.path), reference.specifier);
      if (resolved !== undefined) {
        const target = toWorkspacePath(root, resolved);
        edges.add(target);
        const targetOwner = ownerOf(target, packages);
        if (targetOwner && targetOwner !== file.owner && target.startsWith(`${targetOwner.dir}/src/`)) {
          report.deepImports.push({
            ...problem,
            reason: `reaches into ${targetOwner.name}'s src; import its entry point instead`,
          });
        }
        continue;
      }
      const { name, subpath } = splitPackageSpecifier(reference.specifier);
      const target = byName.get(name);
      if (!target || target === file.owner) continue;
      if (!target.exportedSubpaths.includes(subpath)) {
        report.deepImports.push({
          ...problem,
          reason: `${name} exports ${target.exportedSubpaths.join(", ") || "nothing"}, not ${subpath}`,
        });
      }
      const upward = layerProblem(file, target);
      if (upward) report.upwardImports.push({ ...problem, reason: upward });
    }
    if (file.isSource) {
      const length = measureFile(join(root, file.path));
      if (length.lines > MAX_SOURCE_LINES && length.reason === undefined)
        report.longFiles.push({ file: file.path, lines: length.lines });
    }
  }
  report.cycles = findImportCycles(graph);
  return report;
}

/** True when the report holds no problem. */
export function isClean(report: StructureReport): boolean {
  return report.cycles.length + report.upwardImports.length + report.deepImports.length + report.longFiles.length === 0;
}

function layerProblem(file: WorkspaceFile, target: WorkspacePackage): string | undefined {
  if (target.layer < file.owner.layer) return undefined;
  const direction = target.layer === file.owner.layer ? "on the same layer as" : "above";
  const importer =
    file.owner.layerName === file.owner.name ? file.owner.name : `${file.owner.name} (${file.owner.layerName})`;
  return `${importer} imports ${target.name}, which is ${direction} it`;
}

function ownerOf(path: string, packages: readonly WorkspacePackage[]): WorkspacePackage | undefined {
  let best: WorkspacePackage | undefined;
  for (const pkg of packages) {
    if (path.startsWith(`${pkg.dir}/`) && (!best || pkg.dir.length > best.dir.length)) best = pkg;
  }
  return best;
}
