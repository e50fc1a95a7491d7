/**
 * The conversation a summary request quotes: a message of a role of the
 * host's own is quoted as JSON, and one that JSON cannot write (a cycle, a
 * bigint, nesting too deep) is quoted empty instead of failing the summary.
 */
import type { AgentMessage } from "@turnkit/agent-loop";
import { describe, expect, it } from "vitest";
import { conversationText } from "../../src/compaction/conversation-text.js";

describe("conversationText", () => {
  it("quotes a host's own message as JSON, and one JSON cannot write as empty, without throwing", () => {
    const cyclic: Record<string, unknown> = { role: "note", text: "loop" };
    cyclic.self = cyclic;
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let level = 0; level < 100_000; level++) deep = { v: deep };
    const messages = [
      { role: "note", text: "plain", timestamp: 1 },
      cyclic,
      { role: "note", size: 10n },
      { role: "note", deep },
    ] as unknown as AgentMessage[];
    // Before, the cycle threw "Converting circular structure to JSON", the bigint and the nesting threw too.
    expect(conversationText(messages, 1_000).split("\n\n")).toEqual([
      '[note]: {"role":"note","text":"plain","timestamp":1}',
      "[note]: ",
      "[note]: ",
      "[note]: ",
    ]);
  });
});
