/**
 * A summary request that fails never loses history and never loops: the
 * request goes out uncompacted, no other compaction is tried in the turn,
 * and a 429 or 529 of the main request is never taken for an overflow.
 */
import type { AgentMessage } from "@turnkit/agent-loop";
import {
  assistantMessage,
  createRecordingTool,
  createScriptedModel,
  createVirtualClock,
  hang,
  response,
  toolCall,
  toolResultMessage,
  usageOf,
  userMessage,
  type ScriptEntry,
} from "@turnkit/agent-core/testing";
import { describe, expect, it } from "vitest";
import { COMPACTION_SUMMARY_SYSTEM_PROMPT } from "../../src/index.js";
import { runCompactedTurn } from "../support/compacted-turn.js";

const WINDOW = 10_000;
const OPTIONS = { reserveTokens: 2_000, keepRecentTokens: 800 };
const failure = (errorMessage: string): ScriptEntry => assistantMessage("", { stopReason: "error", errorMessage });
const RATE_LIMITED = "429 Too Many Requests: rate limit exceeded for input tokens per minute";
const OVERLOADED = '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';

/** Two earlier turns, the last response reporting 8,600 tokens: above the 8,000-token threshold. */
function largeHistory(): AgentMessage[] {
  return [
    userMessage("Please look at the parser.", { timestamp: 1 }),
    assistantMessage([toolCall("read", { path: "parser.ts" }, { id: "r1" })], { timestamp: 2 }),
    toolResultMessage("r1", "read", "x".repeat(8_000), { timestamp: 3 }),
    assistantMessage("The parser drops trailing commas.", { timestamp: 4 }),
    userMessage(`Second question: ${"q".repeat(1_600)}`, { timestamp: 5 }),
    assistantMessage("a".repeat(2_400), { usage: usageOf(8_500, 100), timestamp: 6 }),
  ];
}

const isSummaryRequest = (request: { context: { systemPrompt?: string } }) =>
  request.context.systemPrompt === COMPACTION_SUMMARY_SYSTEM_PROMPT;

describe("a failed summary request keeps the history and the turn going", () => {
  it.each([
    ["429", RATE_LIMITED, "rate_limited"],
    ["529", OVERLOADED, "upstream"],
  ])(
    "a %s on the summary: the request goes out with the whole history, no retry of the compaction in the turn",
    async (_name, error, code) => {
      const read = createRecordingTool("read");
      const turn = await runCompactedTurn({
        model: createScriptedModel(
          [
            failure(error),
            response(toolCall("read", { value: "more" }), { usage: usageOf(8_700, 20) }),
            response("Done.", { usage: usageOf(8_800, 5) }),
          ],
          { model: { contextWindow: WINDOW } },
        ),
        compaction: OPTIONS,
        input: { history: largeHistory(), tools: [read], userMessage: { text: "Now fix it." } },
      });

      expect(turn.outcome).toEqual({ kind: "completed" });
      // One summary request; both main requests (still above the threshold) carry the whole history.
      expect(turn.requests.map(isSummaryRequest)).toEqual([true, false, false]);
      for (const request of turn.requests.slice(1)) {
        expect(JSON.stringify(request.context.messages)).toContain("Please look at the parser.");
      }
      expect(turn.historyChanges.map((change) => change.reason)).not.toContain("replaceMessages");
      expect(turn.transcript.slice(0, 6)).toEqual(largeHistory());
      expect(turn.notices).toEqual([
        {
          type: "summary_failed",
          sessionId: "session-1",
          turnId: "turn-1",
          requestIndex: 0,
          reason: "threshold",
          error: { code, message: expect.any(String) },
        },
      ]);
      // The failed attempt is the turn's auxiliary attempt, not a main one.
      const terminal = turn.events.at(-1)!;
      expect(terminal.type === "session.status" && terminal.payload.usage?.attempts).toEqual({ main: 2, auxiliary: 1 });
    },
  );

  it("a 529 retried by the auxiliary budget until it is spent, on the virtual clock: then the turn goes on uncompacted", async () => {
    const clock = createVirtualClock({ autoAdvance: true });
    const turn = await runCompactedTurn({
      model: createScriptedModel([failure(OVERLOADED), failure(OVERLOADED), failure(OVERLOADED), "Answer."], {
        model: { contextWindow: WINDOW },
        clock,
      }),
      compaction: OPTIONS,
      input: { history: largeHistory(), llmRetry: { maxRetries: 2 }, userMessage: { text: "Now fix it." } },
      runnerOptions: { clock, random: () => 0.5 },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests.map(isSummaryRequest)).toEqual([true, true, true, false]);
    const retries = turn.writer.traces().filter((trace) => trace.phase === "llm.retry");
    expect(retries.map((trace) => [trace.message, trace.attrs?.label])).toEqual([
      ["waiting", "auxiliary"],
      ["waiting", "auxiliary"],
      ["exhausted", "auxiliary"],
    ]);
    expect(turn.notices.map((notice) => notice.type === "summary_failed" && notice.error.code)).toEqual(["upstream"]);
    expect(turn.historyChanges.map((change) => change.reason)).not.toContain("replaceMessages");
  });

  it("a summary that never answers times out (first-event watchdog) and the turn goes on uncompacted", async () => {
    const clock = createVirtualClock({ autoAdvance: true });
    const turn = await runCompactedTurn({
      model: createScriptedModel([hang(), "Answer."], { model: { contextWindow: WINDOW }, clock }),
      compaction: OPTIONS,
      input: {
        history: largeHistory(),
        llm: { firstEventTimeoutMs: 5_000 },
        userMessage: { text: "Now fix it." },
      },
      runnerOptions: { clock },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests.map(isSummaryRequest)).toEqual([true, false]);
    expect(turn.notices).toMatchObject([{ type: "summary_failed", error: { code: "timeout" } }]);
    expect(turn.transcript.slice(0, 6)).toEqual(largeHistory());
  });

  it("after a timed-out summary, later requests of the turn (still above the threshold) ask for no other summary", async () => {
    const clock = createVirtualClock({ autoAdvance: true });
    const read = createRecordingTool("read");
    const turn = await runCompactedTurn({
      model: createScriptedModel(
        [
          hang(),
          response(toolCall("read", { value: "more" }), { usage: usageOf(8_700, 20) }),
          response("Done.", { usage: usageOf(8_800, 5) }),
        ],
        { model: { contextWindow: WINDOW }, clock },
      ),
      compaction: OPTIONS,
      input: {
        history: largeHistory(),
        tools: [read],
        llm: { firstEventTimeoutMs: 5_000 },
        llmRetry: false,
        userMessage: { text: "Now fix it." },
      },
      runnerOptions: { clock },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests.map(isSummaryRequest)).toEqual([true, false, false]);
    expect(turn.notices).toMatchObject([{ type: "summary_failed", error: { code: "timeout" } }]);
    expect(turn.historyChanges.map((change) => change.reason)).not.toContain("replaceMessages");
    expect(turn.transcript.slice(0, 6)).toEqual(largeHistory());
  });

  it("an empty summary is a failure too: nothing is replaced", async () => {
    const turn = await runCompactedTurn({
      model: createScriptedModel(["   ", "Answer."], { model: { contextWindow: WINDOW } }),
      compaction: OPTIONS,
      input: { history: largeHistory(), userMessage: { text: "Now fix it." } },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.notices).toMatchObject([{ type: "summary_failed", error: { code: "empty_summary" } }]);
    expect(turn.historyChanges.map((change) => change.reason)).not.toContain("replaceMessages");
  });

  it("an abort during the summary ends the turn aborted with the history untouched", async () => {
    const controller = new AbortController();
    const turn = await runCompactedTurn({
      model: createScriptedModel(
        [
          () => {
            controller.abort();
            return hang();
          },
          "never sent",
        ],
        { model: { contextWindow: WINDOW } },
      ),
      compaction: OPTIONS,
      input: { history: largeHistory(), signal: controller.signal, userMessage: { text: "Now fix it." } },
    });
    expect(turn.outcome).toEqual({ kind: "aborted" });
    expect(turn.requests).toHaveLength(1);
    expect(turn.notices).toEqual([]);
    expect(turn.historyChanges.map((change) => change.reason)).not.toContain("replaceMessages");
  });
});

describe("a 429 or 529 of the main request never triggers a compaction", () => {
  it.each([
    ["429 naming tokens", RATE_LIMITED, "rate_limited"],
    ["529 overloaded", OVERLOADED, "upstream"],
  ])("%s: the turn fails with its own code, no summary request", async (_name, error, code) => {
    const reasons: string[] = [];
    const turn = await runCompactedTurn({
      model: createScriptedModel([failure(error), "never sent"], { model: { contextWindow: WINDOW } }),
      compaction: OPTIONS,
      input: {
        userMessage: { text: "hello" },
        hooks: { beforeLlmCallHook: (event) => void reasons.push(event.reason) },
      },
    });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code } });
    expect(reasons).toEqual(["request"]);
    expect(turn.requests).toHaveLength(1);
    expect(turn.notices).toEqual([]);
  });
});
