/**
 * A summary request falls back as a main request does: when the summary
 * model is overloaded and the turn has `llm.fallback`, the next model
 * writes the summary, and the compaction record names the model that did.
 */
import { createScriptedModel, errorAfter, response, usageOf } from "@turnkit/agent-core/testing";
import { describe, expect, it } from "vitest";
import { COMPACTION_SUMMARY_SYSTEM_PROMPT } from "../../src/index.js";
import { reportedHistory, runCompactedTurn } from "../support/compacted-turn.js";

const OVERLOADED = '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';

describe("a summary request and llm.fallback", () => {
  it("an overloaded summary model: the fallback model writes the summary, and the record names it", async () => {
    const backup = createScriptedModel([response("Summary: the user asked twice.", { usage: usageOf(900, 30) })], {
      model: { id: "backup-model", provider: "backup", contextWindow: 10_000 },
    });
    const turn = await runCompactedTurn({
      model: createScriptedModel([errorAfter(0, OVERLOADED), response("Answer.")], {
        model: { contextWindow: 10_000 },
      }),
      compaction: { reserveTokens: 1_000, keepRecentTokens: 1_000 },
      input: {
        history: reportedHistory(),
        llm: { fallback: { models: [{ model: backup.model, streamFn: backup.streamFn }] } },
      },
    });

    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(backup.requests.map((request) => request.context.systemPrompt)).toEqual([COMPACTION_SUMMARY_SYSTEM_PROMPT]);
    expect(turn.notices).toEqual([
      expect.objectContaining({
        type: "compacted",
        record: expect.objectContaining({ summaryModel: "backup/backup-model" }),
      }),
    ]);
    expect(turn.historyChanges.map((change) => change.reason)).toContain("replaceMessages");
    const warnings = turn.writer.ofType("runtime.warning").map((event) => event.payload);
    expect(warnings).toEqual([
      expect.objectContaining({ code: "model_fallback", family: "auxiliary", to: "backup/backup-model" }),
    ]);
  });
});
