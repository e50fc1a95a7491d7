import { createBuiltinTools, type BashEnvSanitizeMode } from "@turnkit/agent-core";
import { createToolExtension, type Extension } from "@turnkit/agent-runtime";

/** Options of {@link createWorkspaceToolsExtension}. */
export interface WorkspaceToolsOptions {
  /** Directory every tool is confined to; `bash` runs here. Must exist. */
  workspaceDir: string;
  /**
   * How much of this process's environment `bash` children lose. Default
   * `"scrub"`: provider keys, cloud secrets and CI tokens never reach a
   * command the model chose. `TURNKIT_BASH_ENV_SANITIZE` wins when set.
   */
  bashEnvMode?: BashEnvSanitizeMode;
}

/**
 * The built-in tools (`read`, `write`, `edit`, `bash`, `grep`, `glob`) bound
 * to one workspace, as a tool extension. The host also sets
 * `disableBuiltinToolFallback`, so these are the only tools the model sees.
 */
export function createWorkspaceToolsExtension(options: WorkspaceToolsOptions): Extension {
  const modeFromEnvironment = process.env.TURNKIT_BASH_ENV_SANITIZE?.trim();
  return createToolExtension({
    id: "workspace-tools",
    description: "read, write, edit, bash, grep and glob in the workspace; bash with a sanitised environment",
    tools: createBuiltinTools({
      workspaceDir: options.workspaceDir,
      bashEnv: modeFromEnvironment ? {} : { mode: options.bashEnvMode ?? "scrub" },
    }),
  });
}
