import type { ExtensionProfile } from "@turnkit/agent-runtime";
import type { ToolBudgetParams } from "./tool-budget-extension.js";

/**
 * A profile for running without network access: the web search is replaced
 * by the bundled docs (same position in the order), the emoji style is left
 * out, and the tool budget is turned on with its parameter.
 */
export const offlineProfile = {
  replace: { "web-search": "docs-search" },
  disable: ["emoji-style"],
  enable: ["tool-budget"],
  params: { "tool-budget": { maxToolCalls: 2 } satisfies ToolBudgetParams },
} as const satisfies ExtensionProfile;
