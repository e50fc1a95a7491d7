import { stat } from "node:fs/promises";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import { defineRuntimeTool } from "../define-runtime-tool.js";
import type { RuntimeTool } from "../runtime-tool.js";
import { compileGlob, type GlobMatcher } from "./glob-matcher.js";
import { compileLineSearch } from "./line-search.js";
import { clipLine, looksBinary } from "./text-output.js";
import { TURN_DEFAULTS } from "../../defaults.js";
import { IGNORE_FILES_DESCRIPTION, ignoredNote, includeIgnoredParameter } from "./include-ignored.js";
import { SmallFileReader } from "./read-small-file.js";
import { TimeSlice } from "./time-slice.js";
import { realWorkspaceRoot, resolveWorkspacePath } from "./workspace-path.js";
import { walkWorkspaceFiles, type WalkedFile, type WalkStats } from "./workspace-walk.js";

const grepParameters = Type.Object({
  pattern: Type.String({ description: "JavaScript regular expression searched for in each line" }),
  path: Type.Optional(
    Type.String({
      description: "File or directory to search, relative to the workspace root (default: the whole workspace)",
    }),
  ),
  glob: Type.Optional(
    Type.String({
      description:
        'Only search files whose path (relative to `path`) matches this glob, e.g. "**/*.ts" or "**/*.{js,ts}"',
    }),
  ),
  ignoreCase: Type.Optional(Type.Boolean({ description: "Match case-insensitively" })),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: `Maximum number of matching lines (default and maximum ${TURN_DEFAULTS.grepDefaultMaxMatches})`,
    }),
  ),
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

/**
 * The built-in `grep` tool: searches files for a regular expression, line by
 * line, in Node (no ripgrep needed). Output lines are `path:line: text`,
 * paths relative to the workspace root. Skips `node_modules`, `.git`,
 * binary files, files over {@link TURN_DEFAULTS.grepMaxFileBytes}, symbolic links and,
 * inside a git repository, what `.gitignore`, `.git/info/exclude` and
 * `.ignore` files hide unless `includeIgnored` is set (see
 * `walkWorkspaceFiles`; a file named as `path` is always searched). Returns
 * at most {@link TURN_DEFAULTS.grepDefaultMaxMatches} matches with a note when more
 * exist, and reads no file after the first match past the limit. Files are
 * read synchronously in slices that give the event loop a turn every few
 * milliseconds (see `TimeSlice`). Read-only: `executionMode: "parallel"`.
 * An invalid regular expression or glob is an error result naming it.
 */
export function createGrepTool(options: { workspaceDir: string }): RuntimeTool<typeof grepParameters, GrepToolDetails> {
  return defineRuntimeTool<typeof grepParameters, GrepToolDetails>({
    name: "grep",
    label: "Search files",
    description: `Search workspace files for a regular expression (JavaScript syntax), line by line. Returns "path:line: text" for each match, at most ${TURN_DEFAULTS.grepDefaultMaxMatches}. Skips binary files. ${IGNORE_FILES_DESCRIPTION} Narrow the search with path and glob.`,
    parameters: grepParameters,
    executionMode: "parallel",
    async execute(_ctx, input, signal) {
      const search = compileLineSearch(input.pattern, input.ignoreCase === true);
      const filter: GlobMatcher | undefined = input.glob !== undefined ? compileGlob(input.glob) : undefined;
      const limit = Math.min(input.limit ?? TURN_DEFAULTS.grepDefaultMaxMatches, TURN_DEFAULTS.grepDefaultMaxMatches);
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
        : [{ absolute: root, relative: path.basename(root) }].filter(
            (file) => !filter || filter.matches(file.relative),
          );

      const lines: string[] = [];
      let filesSearched = 0;
      let filesSkipped = 0;
      let truncated = false;
      const slice = new TimeSlice();
      const reader = new SmallFileReader(TURN_DEFAULTS.grepMaxFileBytes);
      search: for await (const file of files) {
        await slice.yieldIfDue(signal);
        const read = reader.read(file.absolute);
        if (!("bytes" in read)) {
          if (read.skipped === "too-large") filesSkipped++;
          continue;
        }
        if (looksBinary(read.bytes)) {
          filesSkipped++;
          continue;
        }
        filesSearched++;
        const text = read.bytes.toString("utf8");
        if (!search.mayMatchIn(text)) continue;
        const shownPath = path.relative(workspaceRoot, file.absolute).split(path.sep).join("/");
        const fileLines = text.split(/\r?\n/);
        // The empty string after a final newline is no line.
        if (fileLines.at(-1) === "") fileLines.pop();
        for (let i = 0; i < fileLines.length; i++) {
          if (!search.line.test(fileLines[i]!)) continue;
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
      return {
        content: [{ type: "text", text }],
        details: { matches: lines.length, filesSearched, truncated, filesSkipped, ignoredPaths: stats.ignored },
      };
    },
  });
}
