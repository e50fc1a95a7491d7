/**
 * Overflow recovery through the compaction extension: the runner runs the
 * before-LLM hooks again after a context overflow (reason `overflow`); the
 * extension compacts and the request is resent once. When the summary
 * fails, or recovery is off, the turn fails with `context_overflow`.
 */
import type { AgentMessage } from "@turnkit/agent-loop";
import {
  assertRuntimeEventSequence,
  assertToolCallsAnswered,
  assistantMessage,
  createScriptedModel,
  requestText,
  userMessage,
  type ScriptEntry,
} from "@turnkit/agent-core/testing";
import { describe, expect, it } from "vitest";
import { COMPACTION_SUMMARY_SYSTEM_PROMPT, type CompactionRecord } from "../../src/index.js";
import { runCompactedTurn } from "../support/compacted-turn.js";

const OVERFLOW = "prompt is too long: 213462 tokens > 200000 maximum";
const failure = (errorMessage: string): ScriptEntry => assistantMessage("", { stopReason: "error", errorMessage });

/** A history with no usage reported: its estimate (about 3,000 tokens) is far below the window. */
function unreportedHistory(): AgentMessage[] {
  return [
    userMessage(`First: ${"f".repeat(4_000)}`, { timestamp: 1 }),
    assistantMessage("a".repeat(4_000), { timestamp: 2 }),
    userMessage(`Second: ${"s".repeat(4_000)}`, { timestamp: 3 }),
    assistantMessage("b".repeat(400), { timestamp: 4 }),
  ];
}

const model = (script: ScriptEntry[]) => createScriptedModel(script, { model: { contextWindow: 200_000 } });
const isSummaryRequest = (request: { context: { systemPrompt?: string } }) =>
  request.context.systemPrompt === COMPACTION_SUMMARY_SYSTEM_PROMPT;

describe("overflow recovery through compaction", () => {
  it("an overflow the estimate did not foresee: compacts, resends once, completes", async () => {
    const turn = await runCompactedTurn({
      model: model([failure(OVERFLOW), "Summary of the first exchange.", "Answer from the compacted context."]),
      input: { history: unreportedHistory(), userMessage: { text: "Third question." } },
    });

    expect(turn.outcome).toEqual({ kind: "completed" });
    assertRuntimeEventSequence(turn.events);
    assertToolCallsAnswered(turn.transcript);
    expect(turn.requests.map(isSummaryRequest)).toEqual([false, true, false]);
    // About half of the estimate is kept (from the first answer on): the first question went into the summary.
    const resent = JSON.stringify(turn.requests[2]!.context.messages);
    expect(resent).not.toContain("First: ");
    expect(resent).toContain("Second: ");
    expect(requestText(turn.requests[2]!)).toContain("Summary of the first exchange.");
    const record = turn.transcript[0]!.role === "host" ? (turn.transcript[0]!.data as CompactionRecord) : undefined;
    expect(record).toMatchObject({
      reason: "overflow",
      summaries: ["Summary of the first exchange."],
      summarisedMessages: 1,
      keptMessages: 4,
      splitTurn: true,
    });
    // The runner reports the recovery; the overflowed attempt is nowhere in the history.
    const warnings = turn.events.flatMap((event) => (event.type === "runtime.warning" ? [event.payload.code] : []));
    expect(warnings).toEqual(["overflow_recovery"]);
    expect(JSON.stringify(turn.transcript)).not.toContain(OVERFLOW);
    expect(turn.writer.text()).toBe("Answer from the compacted context.");
  });

  it("a failed summary during recovery fails the turn with context_overflow and keeps the history", async () => {
    const turn = await runCompactedTurn({
      model: model([failure(OVERFLOW), failure("429 Too Many Requests"), "never sent"]),
      input: { history: unreportedHistory(), userMessage: { text: "Third question." } },
    });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: "context_overflow" } });
    expect(turn.requests.map(isSummaryRequest)).toEqual([false, true]);
    expect(turn.historyChanges.map((change) => change.reason)).not.toContain("replaceMessages");
    expect(turn.transcript.slice(0, 4)).toEqual(unreportedHistory());
    expect(turn.notices).toMatchObject([
      { type: "summary_failed", reason: "overflow", error: { code: "rate_limited" } },
    ]);
  });

  it("a second overflow after the compaction fails the turn: one resend, never a loop", async () => {
    const turn = await runCompactedTurn({
      model: model([failure(OVERFLOW), "Summary.", failure(OVERFLOW), "never sent", "never sent"]),
      input: { history: unreportedHistory(), userMessage: { text: "Third question." } },
    });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: "context_overflow" } });
    expect(turn.requests.map(isSummaryRequest)).toEqual([false, true, false]);
    // The compaction itself was kept: the host stored it before the resend.
    expect(turn.transcript[0]).toMatchObject({ role: "host", kind: "compaction" });
  });

  it("with recoverOverflow false the extension leaves the overflow alone", async () => {
    const turn = await runCompactedTurn({
      model: model([failure(OVERFLOW), "never sent"]),
      compaction: { recoverOverflow: false },
      input: { history: unreportedHistory(), userMessage: { text: "Third question." } },
    });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: "context_overflow" } });
    expect(turn.requests).toHaveLength(1);
  });
});
