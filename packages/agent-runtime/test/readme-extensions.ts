import { Type } from "@sinclair/typebox";
import { defineRuntimeTool } from "@turnkit/agent-core";
import {
  createExtension,
  createHookExtension,
  createPromptExtension,
  createReminderExtension,
  createToolExtension,
  type Extension,
} from "../src/index.js";

// A tool pack: static tools, and tools built per turn from the context.
const gitStatus = defineRuntimeTool({
  name: "git_status",
  description: "Shows the working tree status",
  parameters: Type.Object({}),
  executionMode: "parallel",
  execute: async () => ({ content: [{ type: "text", text: "nothing to commit, working tree clean" }] }),
});
const gitPush = defineRuntimeTool({
  name: "git_push",
  description: "Pushes the current branch",
  parameters: Type.Object({}),
  execute: async () => ({ content: [{ type: "text", text: "pushed" }] }),
});
export const gitTools = createToolExtension({
  id: "git-tools",
  tools: [gitStatus, (ctx) => (ctx.data?.allowPush ? gitPush : undefined)],
});

// A permission check: the first `block` wins; `null` means "no decision".
export const permissions = createHookExtension({
  id: "permissions",
  hooks: {
    before_tool_call: (event, _signal, ctx) =>
      ctx.data?.readOnly && event.toolCall.name === "git_push"
        ? { block: true, reason: "This session is read-only", blockedBy: "permission" }
        : null,
  },
});

// Prompt text: a system-prompt part and a per-turn prefix of the user's message.
export const houseRules = createPromptExtension({
  id: "house-rules",
  systemPrompt: "Answer briefly. Cite file paths.",
  userPromptPrefix: (ctx) => (ctx.data?.planMode ? "[plan mode: do not edit files]" : undefined),
});

// A reminder: one <system-reminder> block per turn, or nothing.
export const openTodos = new Map<string, number>(); // sessionId -> open items
export const todoReminder = createReminderExtension({
  id: "todo-reminder",
  priority: 10,
  provide: (ctx) => {
    const open = openTodos.get(ctx.sessionId) ?? 0;
    return open > 0 ? `${open} todo items are still open.` : undefined;
  },
});

// Everything at once: declarative parts plus an init that reads the profile's params.
export const auditTrail: string[] = [];
export const auditLog = createExtension<{ verbose?: boolean }>({
  id: "audit-log",
  hooks: { turn_end: (event, ctx) => void auditTrail.push(`${ctx.turnId}: ${event.outcome.kind}`) },
  init(api) {
    if (api.params?.verbose) {
      api.on("after_tool_call", (event) => void auditTrail.push(`${event.toolCall.name} error=${event.isError}`));
    }
  },
});

// Hand-written: init may be async; use `api` only inside it.
export const projectContext: Extension = {
  id: "project-context",
  async init(api) {
    const conventions = await Promise.resolve("Tests live next to the code.");
    api.contributeSystemPrompt(`Project conventions: ${conventions}`);
  },
};
