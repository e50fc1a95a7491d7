import { readdirSync, type Dirent } from "node:fs";
import path from "node:path";
import { TURN_DEFAULTS } from "../../defaults.js";
import { findRepositoryRoot, IGNORE_FILE_NAMES, RepositoryIgnoreRules } from "./ignore-rules.js";
import { TimeSlice } from "./time-slice.js";

/** One regular file met by {@link walkWorkspaceFiles}. */
export interface WalkedFile {
  absolute: string;
  /** Relative to the directory the walk started in, with `/` separators. */
  relative: string;
}

/** Options of {@link walkWorkspaceFiles}. */
export interface WalkOptions {
  /** Stops the walk, which then throws the signal's reason. */
  signal?: AbortSignal;
  /** Also yield what ignore files hide. Default false. */
  includeIgnored?: boolean;
  /** Which files to yield and which folders to enter; default all. */
  filter?: WalkFilter;
  /** Counters the walk adds to as it goes, so the caller can report them. */
  stats?: WalkStats;
}

/** Narrows a walk; paths are relative to its start, with `/` separators. A `GlobMatcher` is one. */
export interface WalkFilter {
  matches(relativePath: string): boolean;
  /** `false` skips the folder and everything below it. */
  mayMatchBelow(relativeFolder: string): boolean;
}

/** What {@link walkWorkspaceFiles} left out. */
export interface WalkStats {
  /**
   * Files the filter accepts and folders it would enter that an ignore file
   * hides (a folder counts once, whatever it holds).
   */
  ignored: number;
}

interface PendingFolder {
  /** Relative to the start, `""` for the start itself. */
  relative: string;
  /** The rules of the repository the folder is in; `undefined` outside one or when ignore files are off. */
  rules: RepositoryIgnoreRules | undefined;
  /** The folder relative to `rules.root`. */
  inRepository: string;
}

/**
 * Yields the regular files below `start` that `filter` accepts, depth
 * first: a folder's files in name order, then its subfolders in name order
 * (so results are stable).
 * Never descends into `node_modules` or `.git` (nor yields a `.git` file),
 * and never follows symbolic links (a link could lead out of the
 * workspace). Hidden files are walked like any other. Unreadable folders are
 * skipped. Folders are listed synchronously, giving the event loop a turn
 * every few milliseconds (see `TimeSlice`). Stops when `signal` fires,
 * throwing its reason.
 *
 * Inside a git repository (a folder holding `.git`, at or above `start`),
 * paths hidden by `.git/info/exclude` or by a `.gitignore` or `.ignore` file
 * in the repository (at any level, read as the walk reaches it, including
 * those between the repository root and `start`) are skipped with git's
 * semantics (see {@link RepositoryIgnoreRules}). A repository nested in
 * another follows its own rules only. Outside any repository no ignore file
 * is read: everything is walked. When `start` itself is ignored (the caller
 * named an ignored folder on purpose) it is walked whole, as with
 * `includeIgnored`.
 */
export async function* walkWorkspaceFiles(start: string, options: WalkOptions = {}): AsyncGenerator<WalkedFile> {
  const { signal, filter, stats } = options;
  const atStart = options.includeIgnored ? "off" : await rulesAtStart(start);
  const honourIgnoreFiles = atStart !== "off";
  const pending: PendingFolder[] = [
    { relative: "", rules: undefined, inRepository: "", ...(typeof atStart === "object" && atStart) },
  ];
  const slice = new TimeSlice();
  while (pending.length > 0) {
    signal?.throwIfAborted();
    await slice.yieldIfDue(signal);
    const folder = pending.pop()!;
    const folderAbsolute = folder.relative === "" ? start : path.join(start, folder.relative);
    let entries: Dirent[];
    try {
      entries = readdirSync(folderAbsolute, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

    let { rules, inRepository } = folder;
    if (honourIgnoreFiles) {
      const names = new Set(entries.map((entry) => entry.name));
      if (names.has(".git")) {
        rules = await RepositoryIgnoreRules.open(folderAbsolute);
        inRepository = "";
      }
      if (rules) await rules.addFilesOf(folderAbsolute, inRepository, names);
    }

    const subfolders: PendingFolder[] = [];
    for (const entry of entries) {
      // The repository's own data, whether a folder or a worktree's `.git` file.
      if (entry.name === ".git") continue;
      const isDirectory = entry.isDirectory();
      if (!isDirectory && !entry.isFile()) continue;
      if (isDirectory && TURN_DEFAULTS.walkSkippedDirectories.includes(entry.name)) continue;
      const relative = folder.relative === "" ? entry.name : `${folder.relative}/${entry.name}`;
      if (filter && !(isDirectory ? filter.mayMatchBelow(relative) : filter.matches(relative))) continue;
      const entryInRepository = inRepository === "" ? entry.name : `${inRepository}/${entry.name}`;
      if (rules?.ignores(entryInRepository, isDirectory)) {
        if (stats) stats.ignored++;
      } else if (isDirectory) {
        subfolders.push({ relative, rules, inRepository: entryInRepository });
      } else {
        yield { absolute: path.join(start, relative), relative };
      }
    }
    // Push in reverse so the first subfolder is walked first.
    for (let i = subfolders.length - 1; i >= 0; i--) pending.push(subfolders[i]!);
  }
}

/**
 * The rules in force at `start` when a repository root lies above it: its
 * exclude file and the ignore files of the folders between. `undefined`
 * when there is no repository or `start` is its root (the walk opens it on
 * seeing `.git`); `"off"` when `start` itself is ignored.
 */
async function rulesAtStart(start: string): Promise<Omit<PendingFolder, "relative"> | "off" | undefined> {
  const root = await findRepositoryRoot(start);
  if (root === undefined || root === start) return undefined;
  const rules = await RepositoryIgnoreRules.open(root);
  const allNames = new Set(IGNORE_FILE_NAMES);
  let inRepository = "";
  for (const part of path.relative(root, start).split(path.sep)) {
    await rules.addFilesOf(path.join(root, inRepository), inRepository, allNames);
    inRepository = inRepository === "" ? part : `${inRepository}/${part}`;
    if (rules.ignores(inRepository, true)) return "off";
  }
  return { rules, inRepository };
}
