import { describeValue, isRecord } from "@turnkit/agent-loop/internal";
import type { BashEnvSpawnHookOptions } from "../../bash-env.js";
import { ConfigErrorCode, TurnkitConfigError } from "../../errors.js";
import type { RuntimeTool } from "../runtime-tool.js";
import { createBashTool } from "./bash-tool.js";
import { createEditTool } from "./edit-tool.js";
import { createGlobTool } from "./glob-tool.js";
import { createGrepTool } from "./grep-tool.js";
import { createReadTool } from "./read-tool.js";
import { createWriteTool } from "./write-tool.js";

/** Options of {@link createBuiltinTools}. */
export interface BuiltinToolsOptions {
  /** Directory every path is resolved against and confined to; `bash` runs here. Must exist. */
  workspaceDir: string;
  /** Sanitising of the `bash` child's environment. */
  bashEnv?: BashEnvSpawnHookOptions;
}

/** Names of the built-in tools, in the order {@link createBuiltinTools} returns them. */
export const BUILTIN_TOOL_NAMES = ["read", "write", "edit", "bash", "grep", "glob"] as const;

/** One of {@link BUILTIN_TOOL_NAMES}. */
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

/**
 * The six built-in tools bound to one workspace: `read`, `grep`, `glob`
 * (read-only, `parallel`) and `write`, `edit`, `bash` (`sequential`). Every
 * path argument is confined to `workspaceDir`; a path outside it (by `..`,
 * an absolute path or a symbolic link) ends the call with an error result
 * whose text says so (a `TurnkitConfigError` `path_outside_workspace`).
 * Fresh objects on every call; nothing is shared between workspaces.
 * Throws a `TurnkitConfigError` (`invalid_tool`) naming the option when
 * `options` is no object, `workspaceDir` no non-empty string or `bashEnv`
 * no object.
 */
export function createBuiltinTools(options: BuiltinToolsOptions): RuntimeTool<any, any>[] {
  assertBuiltinToolsOptions(options);
  const { workspaceDir } = options;
  return [
    createReadTool({ workspaceDir }),
    createWriteTool({ workspaceDir }),
    createEditTool({ workspaceDir }),
    createBashTool({ workspaceDir, ...(options.bashEnv && { bashEnv: options.bashEnv }) }),
    createGrepTool({ workspaceDir }),
    createGlobTool({ workspaceDir }),
  ];
}

function assertBuiltinToolsOptions(options: unknown): asserts options is BuiltinToolsOptions {
  const invalid = (problem: string) =>
    new TurnkitConfigError(ConfigErrorCode.InvalidTool, `createBuiltinTools: ${problem}`);
  if (!isRecord(options)) throw invalid(`expected an options object { workspaceDir }, got ${describeValue(options)}`);
  const { workspaceDir, bashEnv } = options;
  if (typeof workspaceDir !== "string" || workspaceDir === "")
    throw invalid(`workspaceDir must be a non-empty string, got ${describeValue(workspaceDir)}`);
  if (bashEnv !== undefined && !isRecord(bashEnv))
    throw invalid(`bashEnv must be an object, got ${describeValue(bashEnv)}`);
}
