import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { WALK_SKIPPED_DIRECTORIES } from "../../defaults.js";

/** One regular file met by {@link walkWorkspaceFiles}. */
export interface WalkedFile {
  absolute: string;
  /** Relative to the directory the walk started in, with `/` separators. */
  relative: string;
}

/**
 * Yields the regular files below `start`, depth first, entries in name order
 * (so results are stable). Never descends into `node_modules` or `.git`, and
 * never follows symbolic links (a link could lead out of the workspace).
 * Unreadable directories are skipped. Stops when `signal` fires, throwing its
 * reason.
 */
export async function* walkWorkspaceFiles(start: string, signal?: AbortSignal): AsyncGenerator<WalkedFile> {
  const pending: string[] = [""];
  while (pending.length > 0) {
    signal?.throwIfAborted();
    const dirRelative = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = await readdir(path.join(start, dirRelative), { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirectories: string[] = [];
    for (const entry of entries) {
      const relative = dirRelative === "" ? entry.name : `${dirRelative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!WALK_SKIPPED_DIRECTORIES.includes(entry.name)) subdirectories.push(relative);
      } else if (entry.isFile()) {
        yield { absolute: path.join(start, relative), relative };
      }
    }
    // Push in reverse so the first subdirectory is walked first.
    for (let i = subdirectories.length - 1; i >= 0; i--) pending.push(subdirectories[i]!);
  }
}
