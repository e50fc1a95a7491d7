/**
 * The summary request's API key: `summaryApiKey` when given; otherwise the
 * turn's key for a summary model of the turn's provider, and none for a
 * summary model of another provider (pi-ai then reads that provider's
 * environment variable): the turn's key never goes to another provider.
 */
import { createScriptedModel } from "@turnkit/agent-core/testing";
import { describe, expect, it } from "vitest";
import { COMPACTION_SUMMARY_SYSTEM_PROMPT } from "../../src/index.js";
import { reportedHistory, runCompactedTurn } from "../support/compacted-turn.js";

/** The key each summary request was sent with, for a summary model of `provider`. */
async function summaryKeys(provider: string, summaryApiKey?: string): Promise<unknown[]> {
  const model = createScriptedModel(["Summary.", "Answer."], { model: { contextWindow: 10_000 } });
  const turn = await runCompactedTurn({
    model,
    compaction: {
      reserveTokens: 1_000,
      keepRecentTokens: 1_000,
      summaryModel: { ...model.model, provider, id: "summariser" },
      ...(summaryApiKey !== undefined && { summaryApiKey }),
    },
    input: { history: reportedHistory(), userMessage: { text: "Next." }, llm: { apiKey: "sk-turn" } },
  });
  expect(turn.outcome).toEqual({ kind: "completed" });
  return turn.requests
    .filter((request) => request.context.systemPrompt === COMPACTION_SUMMARY_SYSTEM_PROMPT)
    .map((request) => request.options?.apiKey);
}

describe("the summary request's key", () => {
  it("a summary model of the turn's provider gets the turn's key", async () => {
    expect(await summaryKeys("scripted")).toEqual(["sk-turn"]);
  });

  it("a summary model of another provider never gets the turn's key", async () => {
    expect(await summaryKeys("other-provider")).toEqual([undefined]);
  });

  it("summaryApiKey is sent to either", async () => {
    expect(await summaryKeys("other-provider", "sk-summary")).toEqual(["sk-summary"]);
    expect(await summaryKeys("scripted", "sk-summary")).toEqual(["sk-summary"]);
  });
});
