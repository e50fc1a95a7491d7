import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import { defineRuntimeTool } from "../define-runtime-tool.js";
import type { RuntimeTool } from "../runtime-tool.js";
import { compileGlob, type GlobMatcher } from "./glob-matcher.js";
import { clipLine, looksBinary } from "./text-output.js";
import { GREP_DEFAULT_MAX_MATCHES, GREP_MAX_FILE_BYTES } from "../../defaults.js";
import { IGNORE_FILES_DESCRIPTION, ignoredNote, includeIgnoredParameter } from "./include-ignored.js";
import { realWorkspaceRoot, resolveWorkspacePath } from "./workspace-path.js";
import { walkWorkspaceFiles, type WalkedFile, type WalkStats } from "./workspace-walk.js";

const grepParameters = Type.Object({
  pattern: Type.String({ description: "JavaScript regular expression searched for in each line" }),
  path: Type.Optional(Type.String({ description: "File or directory to search, relative to the workspace root (default: the whole workspace)" })),
  glob: Type.Optional(Type.String({ description: 'Only search files whose path (relative to `path`) matches this glob, e.g. "**/*.ts" or "**/*.{js,ts}"' })),
  ignoreCase: Type.Optional(Type.Boolean({ description: "Match case-insensitively" })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: `Maximum number of matching lines (default and maximum ${GREP_DEFAULT_MAX_MATCHES})` })),
  includeIgnored: includeIgnoredParameter,
});

/** What `grep` reports besides the matches. */
export interface GrepToolDetails {
  matches: number;
  filesSearched: number;
  /** True when more matches exist than were returned. */
  truncated: boolean;
  /** Files skipped as binary or larger than the limit. */
  filesSkipped: number;
  /** Files and folders left out because an ignore file hides them (a folder counts once). */
  ignoredPaths: number;
}

/** Reads in flight ahead of the file being searched: enough to keep the file system busy, few enough to bound memory (each at most `GREP_MAX_FILE_BYTES`). */
const GREP_READ_AHEAD_FILES = 16;

/** A file as read for searching: its bytes, or why it is not searched. */
type LoadedFile = { file: WalkedFile; bytes: Buffer } | { file: WalkedFile; skipped: "too-large" | "binary" | "unreadable" };

/**
 * The built-in `grep` tool: searches files for a regular expression, line by
 * line, in Node (no ripgrep needed). Output lines are `path:line: text`,
 * paths relative to the workspace root. Skips `node_modules`, `.git`,
 * binary files, files over {@link GREP_MAX_FILE_BYTES}, symbolic links and,
 * inside a git repository, what `.gitignore`, `.git/info/exclude` and
 * `.ignore` files hide unless `includeIgnored` is set (see
 * `walkWorkspaceFiles`; a file named as `path` is always searched). Returns
 * at most {@link GREP_DEFAULT_MAX_MATCHES} matches with a note when more
 * exist, and stops reading files at the first match past the limit.
 * Read-only: `executionMode: "parallel"`. An invalid regular expression or
 * glob is an error result naming it.
 */
export function createGrepTool(options: { workspaceDir: string }): RuntimeTool<typeof grepParameters, GrepToolDetails> {
  return defineRuntimeTool<typeof grepParameters, GrepToolDetails>({
    name: "grep",
    label: "Search files",
    description: `Search workspace files for a regular expression (JavaScript syntax), line by line. Returns "path:line: text" for each match, at most ${GREP_DEFAULT_MAX_MATCHES}. Skips binary files. ${IGNORE_FILES_DESCRIPTION} Narrow the search with path and glob.`,
    parameters: grepParameters,
    executionMode: "parallel",
    async execute(_ctx, input, signal) {
      let regex: RegExp;
      try {
        regex = new RegExp(input.pattern, input.ignoreCase ? "i" : "");
      } catch (error) {
        throw new Error(`Invalid regular expression ${JSON.stringify(input.pattern)}: ${(error as Error).message}`);
      }
      const filter: GlobMatcher | undefined = input.glob !== undefined ? compileGlob(input.glob) : undefined;
      const limit = Math.min(input.limit ?? GREP_DEFAULT_MAX_MATCHES, GREP_DEFAULT_MAX_MATCHES);
      const base = await resolveWorkspacePath(options.workspaceDir, input.path ?? ".");
      const root = base.absolute;
      const workspaceRoot = await realWorkspaceRoot(options.workspaceDir);

      const baseInfo = await stat(root).catch(() => {
        throw new Error(`Path not found: ${base.relative}`);
      });
      const stats: WalkStats = { ignored: 0 };
      const files: AsyncIterable<WalkedFile> | WalkedFile[] = baseInfo.isDirectory()
        ? walkWorkspaceFiles(root, {
            signal,
            stats,
            includeIgnored: input.includeIgnored === true,
            ...(filter && { filter }),
          })
        : [{ absolute: root, relative: path.basename(root) }].filter((file) => !filter || filter.matches(file.relative));

      const lines: string[] = [];
      let filesSearched = 0;
      let filesSkipped = 0;
      let truncated = false;
      search: for await (const loaded of readAhead(files, signal)) {
        if (!("bytes" in loaded)) {
          if (loaded.skipped !== "unreadable") filesSkipped++;
          continue;
        }
        filesSearched++;
        const shownPath = path.relative(workspaceRoot, loaded.file.absolute).split(path.sep).join("/");
        const fileLines = loaded.bytes.toString("utf8").split(/\r?\n/);
        for (let i = 0; i < fileLines.length; i++) {
          if (!regex.test(fileLines[i]!)) continue;
          if (lines.length >= limit) {
            truncated = true;
            break search;
          }
          lines.push(`${shownPath}:${i + 1}: ${clipLine(fileLines[i]!, 500)}`);
        }
      }

      let text =
        lines.length > 0
          ? lines.join("\n")
          : `No matches for ${JSON.stringify(input.pattern)} in ${base.relative} (${filesSearched} files searched)${ignoredNote(stats)}`;
      if (truncated) text += `\n\n[Showing the first ${limit} matches; more exist. Narrow the pattern, path or glob.]`;
      return { content: [{ type: "text", text }], details: { matches: lines.length, filesSearched, truncated, filesSkipped, ignoredPaths: stats.ignored } };
    },
  });
}

/**
 * Reads the files in walk order, with up to
 * {@link GREP_READ_AHEAD_FILES} reads in flight, so the disk works while
 * the current file is searched. When the caller stops iterating, no further
 * file is read (reads already started finish and are dropped).
 */
async function* readAhead(files: AsyncIterable<WalkedFile> | Iterable<WalkedFile>, signal: AbortSignal): AsyncGenerator<LoadedFile> {
  const inFlight: Promise<LoadedFile>[] = [];
  for await (const file of files) {
    signal.throwIfAborted();
    inFlight.push(loadFile(file));
    if (inFlight.length >= GREP_READ_AHEAD_FILES) yield await inFlight.shift()!;
  }
  while (inFlight.length > 0) yield await inFlight.shift()!;
}

/** Never rejects: a file that vanished or cannot be read is `unreadable`. */
async function loadFile(file: WalkedFile): Promise<LoadedFile> {
  const info = await stat(file.absolute).catch(() => undefined);
  if (!info) return { file, skipped: "unreadable" };
  if (info.size > GREP_MAX_FILE_BYTES) return { file, skipped: "too-large" };
  const bytes = await readFile(file.absolute).catch(() => undefined);
  if (!bytes) return { file, skipped: "unreadable" };
  return looksBinary(bytes) ? { file, skipped: "binary" } : { file, bytes };
}
