import { createHiddenMessage } from "@turnkit/agent-core";
import type { AgentMessage } from "@turnkit/agent-loop";
import { createHookExtension, type Extension } from "@turnkit/agent-runtime";
import { COMPACTION_KEEP_MESSAGES, COMPACTION_MAX_MESSAGES } from "./defaults.js";

/** Options of {@link createCompactionExtension}. */
export interface CompactionOptions {
  /** Compact when a request would send more messages than this. Default {@link COMPACTION_MAX_MESSAGES}. */
  maxMessages?: number;
  /** Keep at least this many of the newest messages. Default {@link COMPACTION_KEEP_MESSAGES}. Must be below `maxMessages`. */
  keepMessages?: number;
}

/**
 * Keeps long sessions inside the context window: before a request whose
 * history is longer than `maxMessages`, replaces the history with one
 * hidden summary message followed by the newest messages, cut at a user
 * message so no tool call loses its result. A `replaceMessages` decision
 * makes the runner hand the new history to `onHistoryChangedHook` as a
 * `replaceMessages` change, and the session store rewrites its file.
 *
 * The summary is mechanical (the user's requests, the tools used, the files
 * changed); a real host would ask a model for it.
 */
export function createCompactionExtension(options: CompactionOptions = {}): Extension {
  const maxMessages = options.maxMessages ?? COMPACTION_MAX_MESSAGES;
  const keepMessages = Math.min(options.keepMessages ?? COMPACTION_KEEP_MESSAGES, maxMessages - 1);
  return createHookExtension({
    id: "compaction",
    description: `compacts history longer than ${maxMessages} messages`,
    hooks: {
      before_llm_call: (event) => {
        if (event.reason !== "request" || event.messages.length <= maxMessages) return undefined;
        const cut = findCut(event.messages, keepMessages);
        if (cut <= 0) return undefined;
        const dropped = event.messages.slice(0, cut);
        const summary = createHiddenMessage(summarise(dropped), "compaction");
        return {
          type: "replaceMessages",
          messages: [summary, ...event.messages.slice(cut)],
          metadata: { compactedMessages: dropped.length },
        };
      },
    },
  });
}

/** The last user message that leaves at least `keep` messages after the cut, or -1. */
function findCut(messages: readonly AgentMessage[], keep: number): number {
  for (let index = messages.length - keep; index > 0; index -= 1) {
    if (messages[index]?.role === "user") return index;
  }
  return -1;
}

function summarise(messages: readonly AgentMessage[]): string {
  const requests: string[] = [];
  const tools = new Map<string, number>();
  const changed = new Set<string>();
  for (const message of messages) {
    if (message.role === "user") {
      const text =
        typeof message.content === "string"
          ? message.content
          : message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(" ");
      requests.push(`"${text.slice(0, 120)}"`);
    } else if (message.role === "assistant") {
      for (const block of message.content) {
        if (block.type !== "toolCall") continue;
        tools.set(block.name, (tools.get(block.name) ?? 0) + 1);
        if ((block.name === "edit" || block.name === "write") && typeof block.arguments.path === "string")
          changed.add(block.arguments.path);
      }
    }
  }
  const toolList = [...tools].map(([name, count]) => `${name} ×${count}`).join(", ") || "none";
  return [
    `Summary of ${messages.length} earlier messages (compacted):`,
    `- the user asked: ${requests.join("; ") || "nothing"}`,
    `- tools used: ${toolList}`,
    `- files changed: ${[...changed].join(", ") || "none"}`,
  ].join("\n");
}
