import type { AgentMessage } from "@turnkit/agent-loop";
import { createReminderExtension, type Extension } from "@turnkit/agent-runtime";

/**
 * A reminder, renewed every turn, of which files the agent changed in this
 * session, so a long session does not lose track of its own edits. It reads
 * the session history the host puts in the turn context
 * (`ctx.data.history`): successful `edit` and `write` calls count. Holding
 * no state of its own, it is right after a resume too.
 */
export function createChangedFilesReminderExtension(): Extension {
  return createReminderExtension({
    id: "changed-files-reminder",
    description: "reminds the model which files it changed in this session",
    provide: (ctx) => {
      const history = Array.isArray(ctx.data?.history) ? (ctx.data.history as AgentMessage[]) : [];
      const changed = changedFiles(history);
      if (changed.length === 0)
        return "No files changed in this session yet. Read before you edit, and run the tests after editing.";
      return `Files you changed in this session: ${changed.join(", ")}. Run the tests after editing.`;
    },
  });
}

/** Paths of `edit` and `write` calls whose result is not an error, in first-change order. */
function changedFiles(history: readonly AgentMessage[]): string[] {
  const failed = new Set<string>();
  for (const message of history) if (message.role === "toolResult" && message.isError) failed.add(message.toolCallId);
  const changed = new Set<string>();
  for (const message of history) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) {
      if (block.type !== "toolCall" || (block.name !== "edit" && block.name !== "write") || failed.has(block.id))
        continue;
      if (typeof block.arguments.path === "string") changed.add(block.arguments.path);
    }
  }
  return [...changed];
}
