import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import { defineRuntimeTool } from "../define-runtime-tool.js";
import type { RuntimeTool } from "../runtime-tool.js";
import { globToRegExp } from "./glob-pattern.js";
import { clipLine, looksBinary } from "./text-output.js";
import { GREP_DEFAULT_MAX_MATCHES, GREP_MAX_FILE_BYTES } from "../../defaults.js";
import { realWorkspaceRoot, resolveWorkspacePath } from "./workspace-path.js";
import { walkWorkspaceFiles, type WalkedFile } from "./workspace-walk.js";

const grepParameters = Type.Object({
  pattern: Type.String({ description: "JavaScript regular expression searched for in each line" }),
  path: Type.Optional(Type.String({ description: "File or directory to search, relative to the workspace root (default: the whole workspace)" })),
  glob: Type.Optional(Type.String({ description: 'Only search files whose path (relative to `path`) matches this glob, e.g. "**/*.ts"' })),
  ignoreCase: Type.Optional(Type.Boolean({ description: "Match case-insensitively" })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: `Maximum number of matching lines (default and maximum ${GREP_DEFAULT_MAX_MATCHES})` })),
});

/** What `grep` reports besides the matches. */
export interface GrepToolDetails {
  matches: number;
  filesSearched: number;
  /** True when more matches exist than were returned. */
  truncated: boolean;
  /** Files skipped as binary or larger than the limit. */
  filesSkipped: number;
}

/**
 * The built-in `grep` tool: searches files for a regular expression, line by
 * line, in Node (no ripgrep needed). Output lines are `path:line: text`,
 * paths relative to the workspace root. Skips `node_modules`, `.git`,
 * binary files, files over {@link GREP_MAX_FILE_BYTES} and symbolic links;
 * returns at most {@link GREP_DEFAULT_MAX_MATCHES} matches with a note when
 * more exist. Read-only: `executionMode: "parallel"`. An invalid regular
 * expression or glob is an error result naming it.
 */
export function createGrepTool(options: { workspaceDir: string }): RuntimeTool<typeof grepParameters, GrepToolDetails> {
  return defineRuntimeTool<typeof grepParameters, GrepToolDetails>({
    name: "grep",
    label: "Search files",
    description: `Search workspace files for a regular expression (JavaScript syntax), line by line. Returns "path:line: text" for each match, at most ${GREP_DEFAULT_MAX_MATCHES}. Skips node_modules, .git and binary files. Narrow the search with path and glob.`,
    parameters: grepParameters,
    executionMode: "parallel",
    async execute(_ctx, input, signal) {
      let regex: RegExp;
      try {
        regex = new RegExp(input.pattern, input.ignoreCase ? "i" : "");
      } catch (error) {
        throw new Error(`Invalid regular expression ${JSON.stringify(input.pattern)}: ${(error as Error).message}`);
      }
      const filter = input.glob !== undefined ? globToRegExp(input.glob) : undefined;
      const limit = Math.min(input.limit ?? GREP_DEFAULT_MAX_MATCHES, GREP_DEFAULT_MAX_MATCHES);
      const base = await resolveWorkspacePath(options.workspaceDir, input.path ?? ".");
      const root = base.absolute;
      const workspaceRoot = await realWorkspaceRoot(options.workspaceDir);

      const baseInfo = await stat(root).catch(() => {
        throw new Error(`Path not found: ${base.relative}`);
      });
      const files: AsyncIterable<WalkedFile> | WalkedFile[] = baseInfo.isDirectory()
        ? walkWorkspaceFiles(root, signal)
        : [{ absolute: root, relative: path.basename(root) }];

      const lines: string[] = [];
      let filesSearched = 0;
      let filesSkipped = 0;
      let truncated = false;
      search: for await (const file of files) {
        if (filter && !filter.test(file.relative)) continue;
        signal.throwIfAborted();
        const info = await stat(file.absolute).catch(() => undefined);
        if (!info) continue;
        if (info.size > GREP_MAX_FILE_BYTES) {
          filesSkipped++;
          continue;
        }
        const bytes = await readFile(file.absolute).catch(() => undefined);
        if (!bytes) continue;
        if (looksBinary(bytes)) {
          filesSkipped++;
          continue;
        }
        filesSearched++;
        const shownPath = path.relative(workspaceRoot, file.absolute).split(path.sep).join("/");
        const fileLines = bytes.toString("utf8").split(/\r?\n/);
        for (let i = 0; i < fileLines.length; i++) {
          if (!regex.test(fileLines[i]!)) continue;
          if (lines.length >= limit) {
            truncated = true;
            break search;
          }
          lines.push(`${shownPath}:${i + 1}: ${clipLine(fileLines[i]!, 500)}`);
        }
      }

      let text = lines.length > 0 ? lines.join("\n") : `No matches for ${JSON.stringify(input.pattern)} in ${base.relative} (${filesSearched} files searched)`;
      if (truncated) text += `\n\n[Showing the first ${limit} matches; more exist. Narrow the pattern, path or glob.]`;
      return { content: [{ type: "text", text }], details: { matches: lines.length, filesSearched, truncated, filesSkipped } };
    },
  });
}
