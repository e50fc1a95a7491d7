import { stat } from "node:fs/promises";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import { defineRuntimeTool } from "../define-runtime-tool.js";
import type { RuntimeTool } from "../runtime-tool.js";
import { compileGlob } from "./glob-matcher.js";
import { TURN_DEFAULTS } from "../../defaults.js";
import { IGNORE_FILES_DESCRIPTION, ignoredNote, includeIgnoredParameter } from "./include-ignored.js";
import { realWorkspaceRoot, resolveWorkspacePath } from "./workspace-path.js";
import { walkWorkspaceFiles, type WalkStats } from "./workspace-walk.js";

const globParameters = Type.Object({
  pattern: Type.String({
    description:
      'Glob matched against file paths relative to `path`, e.g. "**/*.ts", "src/*.{js,ts}" or "**/!(*.test).ts"',
  }),
  path: Type.Optional(
    Type.String({ description: "Directory to search, relative to the workspace root (default: the whole workspace)" }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: `Maximum number of paths (default and maximum ${TURN_DEFAULTS.globDefaultMaxResults})`,
    }),
  ),
  includeIgnored: includeIgnoredParameter,
});

/** What `glob` reports besides the paths. */
export interface GlobToolDetails {
  /** Paths returned. */
  count: number;
  /** True when more files matched than were returned. */
  truncated: boolean;
  /** Files and folders left out because an ignore file hides them (a folder counts once). */
  ignoredPaths: number;
}

/**
 * The built-in `glob` tool: lists files whose path below `path` matches a
 * glob (shell syntax with braces, extglobs and character classes; see
 * `compileGlob`). Returns paths relative to the workspace root, one per
 * line, in a stable depth-first name order, at most
 * {@link TURN_DEFAULTS.globDefaultMaxResults}; the walk stops at the first match past
 * the limit. Skips `node_modules`, `.git`, symbolic links and, inside a git
 * repository, what `.gitignore`, `.git/info/exclude` and `.ignore` files
 * hide unless `includeIgnored` is set (see `walkWorkspaceFiles`). Read-only:
 * `executionMode: "parallel"`.
 */
export function createGlobTool(options: { workspaceDir: string }): RuntimeTool<typeof globParameters, GlobToolDetails> {
  return defineRuntimeTool<typeof globParameters, GlobToolDetails>({
    name: "glob",
    label: "Find files",
    description: `Find workspace files by glob pattern ("**/*.ts", "src/**/test-*.{js,ts}", "**/!(*.test).ts"). A pattern without "/" matches only the top level of path. Returns paths relative to the workspace root, at most ${TURN_DEFAULTS.globDefaultMaxResults}. ${IGNORE_FILES_DESCRIPTION}`,
    parameters: globParameters,
    executionMode: "parallel",
    async execute(_ctx, input, signal) {
      const matcher = compileGlob(input.pattern);
      const limit = Math.min(input.limit ?? TURN_DEFAULTS.globDefaultMaxResults, TURN_DEFAULTS.globDefaultMaxResults);
      const base = await resolveWorkspacePath(options.workspaceDir, input.path ?? ".");
      const info = await stat(base.absolute).catch(() => undefined);
      if (!info) throw new Error(`Directory not found: ${base.relative}`);
      if (!info.isDirectory()) throw new Error(`${base.relative} is a file, not a directory`);
      const workspaceRoot = await realWorkspaceRoot(options.workspaceDir);

      const stats: WalkStats = { ignored: 0 };
      const walk = walkWorkspaceFiles(base.absolute, {
        signal,
        stats,
        includeIgnored: input.includeIgnored === true,
        filter: matcher,
      });
      const found: string[] = [];
      let truncated = false;
      for await (const file of walk) {
        if (found.length >= limit) {
          truncated = true;
          break;
        }
        found.push(path.relative(workspaceRoot, file.absolute).split(path.sep).join("/"));
      }
      let text =
        found.length > 0
          ? found.join("\n")
          : `No files match ${JSON.stringify(input.pattern)} in ${base.relative}${ignoredNote(stats)}`;
      if (truncated) text += `\n\n[Showing the first ${limit} paths; more match. Narrow the pattern or path.]`;
      return {
        content: [{ type: "text", text }],
        details: { count: found.length, truncated, ignoredPaths: stats.ignored },
      };
    },
  });
}
