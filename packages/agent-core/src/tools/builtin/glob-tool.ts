import { stat } from "node:fs/promises";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import { defineRuntimeTool } from "../define-runtime-tool.js";
import type { RuntimeTool } from "../runtime-tool.js";
import { globToRegExp } from "./glob-pattern.js";
import { GLOB_DEFAULT_MAX_RESULTS } from "../../defaults.js";
import { realWorkspaceRoot, resolveWorkspacePath } from "./workspace-path.js";
import { walkWorkspaceFiles } from "./workspace-walk.js";

const globParameters = Type.Object({
  pattern: Type.String({ description: 'Glob matched against file paths relative to `path`, e.g. "**/*.ts" or "src/*.{js,ts}"' }),
  path: Type.Optional(Type.String({ description: "Directory to search, relative to the workspace root (default: the whole workspace)" })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: `Maximum number of paths (default and maximum ${GLOB_DEFAULT_MAX_RESULTS})` })),
});

/** What `glob` reports besides the paths. */
export interface GlobToolDetails {
  /** Paths returned. */
  count: number;
  /** True when more files matched than were returned. */
  truncated: boolean;
}

/**
 * The built-in `glob` tool: lists files whose path below `path` matches a
 * glob (`*`, `?`, `**`, `[...]`, `{a,b}`; see `globToRegExp`). Returns paths
 * relative to the workspace root, one per line, in a stable depth-first name
 * order, at most {@link GLOB_DEFAULT_MAX_RESULTS}. Skips `node_modules`,
 * `.git` and symbolic links. Read-only: `executionMode: "parallel"`.
 */
export function createGlobTool(options: { workspaceDir: string }): RuntimeTool<typeof globParameters, GlobToolDetails> {
  return defineRuntimeTool<typeof globParameters, GlobToolDetails>({
    name: "glob",
    label: "Find files",
    description: `Find workspace files by glob pattern ("**/*.ts", "src/**/test-*.{js,ts}"). A pattern without "/" matches only the top level of path. Returns paths relative to the workspace root, at most ${GLOB_DEFAULT_MAX_RESULTS}. Skips node_modules and .git.`,
    parameters: globParameters,
    executionMode: "parallel",
    async execute(_ctx, input, signal) {
      let matcher: RegExp;
      try {
        matcher = globToRegExp(input.pattern);
      } catch (error) {
        throw new Error(`Invalid glob pattern: ${(error as Error).message}`);
      }
      const limit = Math.min(input.limit ?? GLOB_DEFAULT_MAX_RESULTS, GLOB_DEFAULT_MAX_RESULTS);
      const base = await resolveWorkspacePath(options.workspaceDir, input.path ?? ".");
      const info = await stat(base.absolute).catch(() => undefined);
      if (!info) throw new Error(`Directory not found: ${base.relative}`);
      if (!info.isDirectory()) throw new Error(`${base.relative} is a file, not a directory`);
      const workspaceRoot = await realWorkspaceRoot(options.workspaceDir);

      const found: string[] = [];
      let truncated = false;
      for await (const file of walkWorkspaceFiles(base.absolute, signal)) {
        if (!matcher.test(file.relative)) continue;
        if (found.length >= limit) {
          truncated = true;
          break;
        }
        found.push(path.relative(workspaceRoot, file.absolute).split(path.sep).join("/"));
      }
      let text = found.length > 0 ? found.join("\n") : `No files match ${JSON.stringify(input.pattern)} in ${base.relative}`;
      if (truncated) text += `\n\n[Showing the first ${limit} paths; more match. Narrow the pattern or path.]`;
      return { content: [{ type: "text", text }], details: { count: found.length, truncated } };
    },
  });
}
