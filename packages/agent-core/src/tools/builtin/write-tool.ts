import { mkdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import { defineRuntimeTool } from "../define-runtime-tool.js";
import type { RuntimeTool } from "../runtime-tool.js";
import { resolveWorkspacePath } from "./workspace-path.js";

const writeParameters = Type.Object({
  path: Type.String({ description: "File path, relative to the workspace root (or absolute inside it)" }),
  content: Type.String({ description: "The complete new content of the file" }),
});

/** What `write` reports besides the text. */
export interface WriteToolDetails {
  path: string;
  /** Bytes written (UTF-8). */
  bytes: number;
  /** True when the file did not exist before. */
  created: boolean;
}

/**
 * The built-in `write` tool: writes `content` to a file, creating missing
 * parent directories and replacing an existing file whole. Declares
 * `executionMode: "sequential"`. Refuses paths outside `workspaceDir`
 * (including through symbolic links) and directories.
 */
export function createWriteTool(options: {
  workspaceDir: string;
}): RuntimeTool<typeof writeParameters, WriteToolDetails> {
  return defineRuntimeTool<typeof writeParameters, WriteToolDetails>({
    name: "write",
    label: "Write file",
    description:
      "Write a file in the workspace, replacing it if it exists. Creates missing parent directories. For small changes to an existing file prefer the edit tool.",
    parameters: writeParameters,
    executionMode: "sequential",
    async execute(_ctx, input, signal) {
      const target = await resolveWorkspacePath(options.workspaceDir, input.path);
      const existing = await stat(target.absolute).catch(() => undefined);
      if (existing?.isDirectory()) throw new Error(`${target.relative} is a directory; give a file path`);
      await mkdir(path.dirname(target.absolute), { recursive: true });
      const data = Buffer.from(input.content, "utf8");
      await writeFile(target.absolute, data, { signal });
      return {
        content: [{ type: "text", text: `Wrote ${data.length} bytes to ${target.relative}` }],
        details: { path: target.relative, bytes: data.length, created: existing === undefined },
      };
    },
  });
}
