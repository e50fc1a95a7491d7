/**
 * One turn of a real `PiTurnRunner` with a runtime holding only the
 * compaction extension, through agent-core's public testing entry.
 */
import {
  type RunScriptedTurnOptions,
  type ScriptedTurnResult,
  assistantMessage,
  runScriptedTurn,
  usageOf,
  userMessage,
} from "@turnkit/agent-core/testing";
import type { AgentMessage } from "@turnkit/agent-loop";
import {
  type CompactionNotice,
  type CompactionOptions,
  createAgentRuntime,
  createCompactionExtension,
} from "../../src/index.js";

/** What {@link runCompactedTurn} takes: the extension's options, and the scripted turn's. */
export interface CompactedTurnOptions extends RunScriptedTurnOptions {
  compaction?: CompactionOptions;
}

/** A scripted turn's result, with what the extension told `onCompaction`. */
export interface CompactedTurnResult extends ScriptedTurnResult {
  notices: CompactionNotice[];
}

/** Assembles the turn, runs it, then awaits the `turn_end` handlers as a host does. */
export async function runCompactedTurn(options: CompactedTurnOptions): Promise<CompactedTurnResult> {
  const notices: CompactionNotice[] = [];
  const runtime = await createAgentRuntime({
    base: [createCompactionExtension({ onCompaction: (notice) => void notices.push(notice), ...options.compaction })],
  });
  const sessionId = options.input?.sessionId ?? "session-1";
  const turnId = options.input?.turnId ?? "turn-1";
  const assembled = await runtime.assembleTurn({ sessionId, turnId });
  const result = await runScriptedTurn({
    ...options,
    input: { ...options.input, hooks: { ...assembled.hooks, ...options.input?.hooks } },
  });
  for (const end of assembled.turnEndHandlers) await end({ outcome: result.outcome });
  return { ...result, notices };
}

/** The text of every message a request sent, by role, for compact assertions. */
export function sentRoles(messages: readonly { role: string }[]): string[] {
  return messages.map((message) => message.role);
}

/** The host-only compaction record and the summary message a replacement starts with. */
export function compactionHead(messages: readonly AgentMessage[]): AgentMessage[] {
  return messages.slice(0, 2);
}

/** A session whose last response reported 9,500 tokens of context: above a 10,000-token window less a 1,000 reserve. */
export function reportedHistory(): AgentMessage[] {
  return [
    userMessage(`Earlier question: ${"e".repeat(8_000)}`, { timestamp: 1 }),
    assistantMessage("Earlier answer.", { timestamp: 2 }),
    userMessage(`Recent question: ${"r".repeat(4_000)}`, { timestamp: 3 }),
    assistantMessage("Recent answer.", { usage: usageOf(9_400, 100), timestamp: 4 }),
  ];
}
