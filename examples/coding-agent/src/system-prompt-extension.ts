import { createPromptExtension, type Extension } from "@turnkit/agent-runtime";

/**
 * The system prompt of the coding agent, as a prompt extension. The
 * workspace comes from the turn context's `data.workspaceDir`, which the
 * host sets on every `assembleTurn`.
 */
export function createSystemPromptExtension(): Extension {
  return createPromptExtension({
    id: "coding-agent-prompt",
    systemPrompt: (ctx) => {
      const workspace = typeof ctx.data?.workspaceDir === "string" ? ctx.data.workspaceDir : "the current directory";
      return [
        `You are a careful coding agent working in ${workspace}.`,
        "Look before you change anything: read files and grep for callers. Prefer a small edit over rewriting a file.",
        "Run the project's tests with bash after a change, and finish with a short report of what you changed and how you checked it.",
        "The user may steer you while you work; follow the newest instruction.",
      ].join("\n");
    },
  });
}
