/**
 * The summary request fits the summary model's window: the estimate counts
 * Chinese, Japanese and Korean text at about a token per character (four
 * times English), and a summary request the provider still finds too long
 * is sent once more with the newest half of its conversation, never more.
 */
import type { AgentMessage } from "@turnkit/agent-loop";
import {
  assistantMessage,
  createScriptedModel,
  requestText,
  usageOf,
  userMessage,
  type ScriptEntry,
} from "@turnkit/agent-core/testing";
import { describe, expect, it } from "vitest";
import { COMPACTION_SUMMARY_SYSTEM_PROMPT, estimateContextTokens, estimateMessageTokens } from "../../src/index.js";
import { runCompactedTurn } from "../support/compacted-turn.js";

const OVERFLOW = "prompt is too long: 213462 tokens > 200000 maximum";
const failure = (errorMessage: string): ScriptEntry => assistantMessage("", { stopReason: "error", errorMessage });
const isSummaryRequest = (request: { context: { systemPrompt?: string } }) =>
  request.context.systemPrompt === COMPACTION_SUMMARY_SYSTEM_PROMPT;

/** The conversation part of a summary request's text. */
const conversationOf = (text: string) => text.slice(0, text.indexOf("</conversation>"));

/** Twelve exchanges of `letter` text, 400 characters a message, then a response reporting 9,000 tokens. */
function exchanges(letter: string): AgentMessage[] {
  const history: AgentMessage[] = [];
  for (let index = 1; index <= 12; index += 1) {
    history.push(userMessage(`Question ${index}: ${letter.repeat(400)}`, { timestamp: index * 2 }));
    history.push(assistantMessage(`Answer ${index}: ${letter.repeat(400)}`, { timestamp: index * 2 + 1 }));
  }
  history.push(assistantMessage("Noted.", { usage: usageOf(9_000, 10), timestamp: 100 }));
  return history;
}

describe("the estimate by script", () => {
  it("counts a CJK character as a token, other non-ASCII as half, ASCII as a quarter", () => {
    expect(estimateMessageTokens(userMessage("a".repeat(400)))).toBe(100);
    expect(estimateMessageTokens(userMessage("解".repeat(400)))).toBe(400);
    expect(estimateMessageTokens(userMessage("ありがとう".repeat(80)))).toBe(400);
    expect(estimateMessageTokens(userMessage("д".repeat(400)))).toBe(200);
    expect(estimateMessageTokens(assistantMessage("한국어".repeat(100)))).toBe(300);
  });

  it("a Chinese history without reported usage is above the window where the same length of English is not", () => {
    const chinese = [userMessage("请".repeat(9_000)), assistantMessage("好".repeat(1_000))];
    const english = [userMessage("p".repeat(9_000)), assistantMessage("g".repeat(1_000))];
    expect(estimateContextTokens(chinese).tokens).toBe(10_000);
    expect(estimateContextTokens(english).tokens).toBe(2_500);
  });
});

describe("the summary request within the summary model's window", () => {
  it("a Chinese conversation is cut to the summary model's window by its own measure", async () => {
    const model = createScriptedModel(["摘要。", "回答。"], { model: { contextWindow: 10_000 } });
    const summaryModel = { ...model.model, id: "small-summariser", contextWindow: 3_000 };
    const turn = await runCompactedTurn({
      model,
      compaction: { reserveTokens: 1_000, keepRecentTokens: 300, summaryModel, summaryMaxTokens: 500 },
      input: { history: exchanges("中"), userMessage: { text: "继续。" } },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    const asked = requestText(turn.requests[0]!);
    // The input share of the window (0.75 of 2,500 tokens): under 1,875 characters of Chinese, not 7,500.
    expect(conversationOf(asked).length).toBeLessThan(2_500 * 0.75);
    expect(asked).toMatch(/^<conversation>\n\[… the oldest \d+ characters of the conversation were left out/);
    expect(asked).toContain("Question 11:");
    expect(asked).not.toContain("Question 9:");
  });

  it("a summary request that overflows is sent once more with the newest half of its conversation", async () => {
    const turn = await runCompactedTurn({
      model: createScriptedModel([failure(OVERFLOW), "Summary of the newer half.", "Answer."], {
        model: { contextWindow: 10_000 },
      }),
      compaction: { reserveTokens: 1_000, keepRecentTokens: 300 },
      input: { history: exchanges("e"), userMessage: { text: "Go on." } },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests.map(isSummaryRequest)).toEqual([true, true, false]);
    const [first, second] = turn.requests.slice(0, 2).map((request) => requestText(request));
    expect(first).toContain("Question 1:");
    expect(second).not.toContain("Question 1:");
    expect(second).toContain("Question 11:");
    expect(conversationOf(second!).length).toBeLessThan(conversationOf(first!).length * 0.55);
    expect(requestText(turn.requests[2]!)).toContain("Summary of the newer half.");
    expect(turn.notices.map((notice) => notice.type)).toEqual(["compacted"]);
  });

  it("a second overflow of the summary is its failure: two summary requests, the turn goes on uncompacted", async () => {
    const turn = await runCompactedTurn({
      model: createScriptedModel([failure(OVERFLOW), failure(OVERFLOW), "Answer."], {
        model: { contextWindow: 10_000 },
      }),
      compaction: { reserveTokens: 1_000, keepRecentTokens: 300 },
      input: { history: exchanges("e"), userMessage: { text: "Go on." } },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests.map(isSummaryRequest)).toEqual([true, true, false]);
    expect(turn.notices).toMatchObject([{ type: "summary_failed", error: { code: "context_overflow" } }]);
    expect(turn.historyChanges.map((change) => change.reason)).not.toContain("replaceMessages");
  });
});
