import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import ignore, { type Ignore } from "ignore";

/**
 * Files in a folder whose patterns hide paths below it, in the order they
 * are added: a later file wins over an earlier one, so `.ignore` (the file
 * ripgrep reads) overrides `.gitignore` in the same folder.
 */
export const IGNORE_FILE_NAMES: readonly string[] = [".gitignore", ".ignore"];

/**
 * The ignore rules of one git repository, as far as a walk has read them:
 * `.git/info/exclude`, then every `.gitignore` and `.ignore` file met on the
 * way down. Paths are given relative to the repository root.
 *
 * Git's semantics, through the `ignore` package: last matching pattern wins;
 * `!` re-includes; a trailing `/` matches folders only; a pattern with a `/`
 * before its end is anchored to the folder of its file, one without matches
 * at any depth below it; rules of a deeper file win over shallower ones;
 * nothing inside an ignored folder can be re-included. Matching is
 * case-sensitive, as git's default on Linux.
 */
export class RepositoryIgnoreRules {
  private readonly matcher: Ignore = ignore({ ignorecase: false });

  private constructor(
    /** Absolute path of the folder holding `.git`. */
    readonly root: string,
  ) {}

  /** Rules of the repository at `root`, starting from its `.git/info/exclude` (missing or unreadable: no rules). */
  static async open(root: string): Promise<RepositoryIgnoreRules> {
    const rules = new RepositoryIgnoreRules(root);
    const exclude = await readIfPresent(path.join(await gitDirectoryOf(root), "info", "exclude"));
    if (exclude !== undefined) rules.add(exclude, "");
    return rules;
  }

  /** Adds the patterns of an ignore file found in `folder` (relative to the root, `""` for the root itself). */
  add(fileContent: string, folder: string): void {
    const prefix = escapeGlob(folder);
    const lines = fileContent.split(/\r?\n/);
    this.matcher.add(prefix === "" ? lines : lines.flatMap((line) => rebaseLine(line, prefix) ?? []));
  }

  /** Reads the ignore files named in `present` (names found in `folder`) and adds them in {@link IGNORE_FILE_NAMES} order. */
  async addFilesOf(folderAbsolute: string, folder: string, present: ReadonlySet<string>): Promise<void> {
    for (const name of IGNORE_FILE_NAMES) {
      if (!present.has(name)) continue;
      const content = await readIfPresent(path.join(folderAbsolute, name));
      if (content !== undefined) this.add(content, folder);
    }
  }

  /** True when the path (relative to the root) is ignored, or lies in an ignored folder. */
  ignores(relativePath: string, isDirectory: boolean): boolean {
    try {
      return this.matcher.ignores(isDirectory ? `${relativePath}/` : relativePath);
    } catch {
      // A name the package refuses as a path (say `...`): no pattern written for git can be meant for it.
      return false;
    }
  }
}

/**
 * The nearest folder at or above `folder` that holds a `.git` folder or file
 * (a worktree or submodule), or `undefined` outside any repository.
 */
export async function findRepositoryRoot(folder: string): Promise<string | undefined> {
  for (let current = folder; ; ) {
    if (
      await stat(path.join(current, ".git")).then(
        () => true,
        () => false,
      )
    )
      return current;
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

/**
 * Rewrites one line of an ignore file in `prefix` (a folder relative to the
 * root, glob characters escaped) into a pattern relative to the root with
 * the same meaning: anchored patterns get the folder in front, the others
 * `folder/**\/` so they still match at any depth. Blank lines and comments
 * are dropped.
 */
function rebaseLine(line: string, prefix: string): string | undefined {
  if (line.trim() === "" || line.startsWith("#")) return undefined;
  const negated = line.startsWith("!");
  const pattern = negated ? line.slice(1) : line;
  const anchored = pattern.trimEnd().replace(/\/+$/, "").includes("/");
  const rebased = anchored ? `${prefix}/${pattern.replace(/^\//, "")}` : `${prefix}/**/${pattern}`;
  return negated ? `!${rebased}` : rebased;
}

/** A folder path as a literal pattern prefix: glob characters escaped, and a leading `#` or `!` so it is no comment or negation. */
function escapeGlob(folder: string): string {
  return folder.replace(/[\\*?[\]]/g, "\\$&").replace(/^[#!]/, "\\$&");
}

/** The repository's git folder: `.git` itself, or where a `.git` file (`gitdir: ...`) points, its common folder for a worktree. */
async function gitDirectoryOf(root: string): Promise<string> {
  const dotGit = path.join(root, ".git");
  const pointer = await readIfPresent(dotGit);
  const target = pointer?.match(/^gitdir:\s*(.+?)\s*$/m)?.[1];
  if (target === undefined) return dotGit;
  const gitDir = path.resolve(root, target);
  const common = (await readIfPresent(path.join(gitDir, "commondir")))?.trim();
  return common ? path.resolve(gitDir, common) : gitDir;
}

/** A file's text, or `undefined` when it is missing, a folder or unreadable. */
async function readIfPresent(file: string): Promise<string | undefined> {
  return readFile(file, "utf8").catch(() => undefined);
}
