import { lstat, readlink, realpath } from "node:fs/promises";
import path from "node:path";
import { ConfigErrorCode, TurnkitConfigError } from "../../errors.js";

/** A path inside the workspace, after symbolic links were followed. */
export interface WorkspacePath {
  /** Absolute real path (symbolic links resolved; the last parts may not exist yet). */
  absolute: string;
  /** Path relative to the workspace root, `"."` for the root itself; for messages to the model. */
  relative: string;
}

const MAX_SYMLINK_HOPS = 40;

/**
 * Resolves `requested` against the workspace and proves it stays inside.
 *
 * Relative paths are taken from the workspace root; absolute paths are
 * accepted only if they lie inside it. Symbolic links are followed, also
 * dangling ones and links in parent directories of a file not yet created,
 * so a link pointing out of the workspace is caught. Anything outside throws
 * `TurnkitConfigError` (`path_outside_workspace`), which the tool call
 * surfaces to the model as an error result.
 *
 * The check happens before the tool touches the file; a concurrent process
 * that swaps a directory for a link in between is out of scope.
 */
export async function resolveWorkspacePath(workspaceDir: string, requested: unknown): Promise<WorkspacePath> {
  if (typeof requested !== "string" || requested.trim().length === 0) {
    throw new Error(`Expected a non-empty path, got ${JSON.stringify(requested)}`);
  }
  if (requested.includes("\0")) throw new Error("A path must not contain NUL characters");
  const root = path.resolve(workspaceDir);
  const lexical = path.resolve(root, requested);
  if (!isInside(root, lexical)) throw outside(requested, root);

  const realRoot = await realWorkspaceRoot(root);
  const real = await realPathAllowingMissing(path.join(realRoot, path.relative(root, lexical)));
  if (!isInside(realRoot, real)) throw outside(requested, root);
  return { absolute: real, relative: path.relative(realRoot, real) || "." };
}

/** The workspace root with links resolved; a missing root is a clear error. */
export async function realWorkspaceRoot(workspaceDir: string): Promise<string> {
  try {
    return await realpath(path.resolve(workspaceDir));
  } catch (error) {
    throw new Error(
      `The workspace directory ${workspaceDir} does not exist or cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`,
      {
        cause: error,
      },
    );
  }
}

/** True when `candidate` is `root` or below it. Both must be absolute and normalised. */
export function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  // `..foo` is a file name inside the root; `..` and `../x` climb out of it.
  return !path.isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${path.sep}`);
}

/**
 * `realpath` for a path whose last parts may not exist: resolves the longest
 * existing prefix (following dangling links by hand) and appends the rest.
 */
async function realPathAllowingMissing(target: string, hops = 0): Promise<string> {
  if (hops > MAX_SYMLINK_HOPS) throw new Error(`Too many levels of symbolic links at ${target}`);
  try {
    return await realpath(target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
  }
  const info = await lstat(target).catch(() => undefined);
  if (info?.isSymbolicLink()) {
    // A dangling link: writing through it would create its target, so check where it points.
    const linkTarget = await readlink(target);
    return realPathAllowingMissing(path.resolve(path.dirname(target), linkTarget), hops + 1);
  }
  const parent = path.dirname(target);
  if (parent === target) return target;
  return path.join(await realPathAllowingMissing(parent, hops), path.basename(target));
}

function outside(requested: string, root: string): TurnkitConfigError {
  return new TurnkitConfigError(
    ConfigErrorCode.PathOutsideWorkspace,
    `Path ${JSON.stringify(requested)} is outside the workspace ${root}; only paths inside it can be used (relative paths start at the workspace root)`,
  );
}
