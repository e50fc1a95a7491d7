import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { RuntimeTool, RuntimeToolResult, ToolExecutionContext } from "../../src/tools/runtime-tool.js";

/** A fresh temporary directory holding `workspace/` (the tools' root) next to `outside/`. */
export async function makeSandbox(): Promise<{
  base: string;
  workspace: string;
  outside: string;
  cleanup: () => Promise<void>;
}> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), "turnkit-tools-")));
  const workspace = path.join(base, "workspace");
  const outside = path.join(base, "outside");
  await mkdir(workspace);
  await mkdir(outside);
  return { base, workspace, outside, cleanup: () => rm(base, { recursive: true, force: true }) };
}

const ctx: ToolExecutionContext = { sessionId: "s", turnId: "t", toolCallId: "call", assistantMessageId: undefined };

/** Runs a runtime tool directly, as `newTools` would. */
export async function run<TDetails>(
  tool: RuntimeTool<any, TDetails>,
  input: Record<string, unknown>,
  options: { signal?: AbortSignal; onUpdate?: (partial: unknown) => void } = {},
): Promise<RuntimeToolResult<TDetails>> {
  return tool.impl.execute(
    ctx,
    input as never,
    options.signal ?? new AbortController().signal,
    options.onUpdate ?? (() => {}),
  );
}

/** The text of a result's text blocks. */
export function textOf(result: RuntimeToolResult<unknown>): string {
  return result.content.map((c) => (c.type === "text" ? c.text : `[image ${c.mimeType}]`)).join("");
}

/** Writes each file of `tree` (relative path to content) below `root`, creating folders; a path ending in `/` makes an empty folder. */
export async function writeTree(root: string, tree: Record<string, string | Buffer>): Promise<void> {
  for (const [relative, content] of Object.entries(tree)) {
    const file = path.join(root, relative);
    if (relative.endsWith("/")) {
      await mkdir(file, { recursive: true });
      continue;
    }
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
}
