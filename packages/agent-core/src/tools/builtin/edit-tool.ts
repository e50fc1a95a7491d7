import { readFile, writeFile } from "node:fs/promises";
import { Type } from "@sinclair/typebox";
import { defineRuntimeTool } from "../define-runtime-tool.js";
import type { RuntimeTool } from "../runtime-tool.js";
import { resolveWorkspacePath } from "./workspace-path.js";

const editParameters = Type.Object({
  path: Type.String({ description: "File path, relative to the workspace root (or absolute inside it)" }),
  oldText: Type.String({
    description: "Exact text to replace; must occur exactly once in the file, including whitespace and indentation",
  }),
  newText: Type.String({ description: "Text to put in its place" }),
});

/** What `edit` reports besides the text. */
export interface EditToolDetails {
  path: string;
  /** 1-based line where the replaced text started. */
  line: number;
  /** Lines of `oldText` and `newText`. */
  removedLines: number;
  addedLines: number;
}

/**
 * The built-in `edit` tool: replaces the one exact occurrence of `oldText`
 * with `newText`. Zero occurrences or more than one is an error that says
 * which (and, for several, on which lines), and leaves the file untouched.
 * The replacement is literal (no `$&` patterns). Declares
 * `executionMode: "sequential"`; refuses paths outside `workspaceDir`.
 */
export function createEditTool(options: { workspaceDir: string }): RuntimeTool<typeof editParameters, EditToolDetails> {
  return defineRuntimeTool<typeof editParameters, EditToolDetails>({
    name: "edit",
    label: "Edit file",
    description:
      "Replace one exact, unique occurrence of oldText with newText in a workspace file. oldText must match the file exactly (whitespace included) and occur once; include surrounding lines to make it unique.",
    parameters: editParameters,
    executionMode: "sequential",
    async execute(_ctx, input, signal) {
      const target = await resolveWorkspacePath(options.workspaceDir, input.path);
      if (input.oldText.length === 0)
        throw new Error("oldText is empty; give the exact text to replace (use the write tool to create a file)");
      if (input.oldText === input.newText) throw new Error("oldText and newText are identical; nothing would change");
      const before = await readFile(target.absolute, { encoding: "utf8", signal }).catch(
        (error: NodeJS.ErrnoException) => {
          throw new Error(
            error.code === "ENOENT"
              ? `File not found: ${target.relative}`
              : `Cannot read ${target.relative}: ${error.message}`,
          );
        },
      );

      const positions = occurrences(before, input.oldText);
      if (positions.length === 0) {
        throw new Error(
          `oldText was not found in ${target.relative}; it must match the file exactly, including whitespace and indentation. Read the file again and copy the text.`,
        );
      }
      if (positions.length > 1) {
        const lines = positions.map((p) => lineOf(before, p));
        throw new Error(
          `oldText occurs ${positions.length} times in ${target.relative} (lines ${lines.join(", ")}); it must be unique. Include more surrounding text so it matches once.`,
        );
      }
      const at = positions[0]!;
      const after = before.slice(0, at) + input.newText + before.slice(at + input.oldText.length);
      await writeFile(target.absolute, after, { encoding: "utf8", signal });
      const line = lineOf(before, at);
      return {
        content: [{ type: "text", text: `Replaced 1 occurrence in ${target.relative} at line ${line}.` }],
        details: {
          path: target.relative,
          line,
          removedLines: countLines(input.oldText),
          addedLines: countLines(input.newText),
        },
      };
    },
  });
}

/** Start offsets of every occurrence, overlapping ones included (they make the match ambiguous too). */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) found.push(i);
  return found;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

function countLines(text: string): number {
  return text.length === 0 ? 0 : text.split("\n").length;
}
