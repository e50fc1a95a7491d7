import { createBuiltinTools, type LlmConfig } from "@turnkit/agent-core";
import { createSubAgentExtension, type Extension } from "@turnkit/agent-runtime";
import { EXPLORE_MAX_STEPS } from "./defaults.js";

/** Options of {@link createExploreExtension}. */
export interface ExploreOptions {
  /** The workspace the sub-agent searches (read-only). */
  workspaceDir: string;
  /** Its model; the host passes the session's unless the model choice names another. */
  llm: LlmConfig;
}

/**
 * The "explore" sub-agent: a read-only helper (`read`, `grep`, `glob`) the
 * model hands a search to. It runs as a child turn of the calling turn: its
 * tool calls and answer appear indented under the call, with a cost line of
 * its own, and what it spent is in the turn's summary. A run that needs more
 * than {@link EXPLORE_MAX_STEPS} requests stops, and its call gets an error
 * result.
 */
export function createExploreExtension(options: ExploreOptions): Extension {
  const readOnly = createBuiltinTools({ workspaceDir: options.workspaceDir }).filter((tool) =>
    ["read", "grep", "glob"].includes(tool.def.name),
  );
  return createSubAgentExtension({
    id: "explore",
    description: "a read-only sub-agent that searches the workspace",
    agents: {
      name: "explore",
      description:
        "Searches the workspace (read, grep, glob) and reports the files and lines that matter. Give it one precise question.",
      systemPrompt:
        "You explore a code base for another agent. Search with grep and glob, read what matters, and answer in one or two sentences naming files and functions.",
      llm: options.llm,
      tools: readOnly,
      executionMode: "parallel",
      budget: { maxSteps: EXPLORE_MAX_STEPS },
    },
  });
}
