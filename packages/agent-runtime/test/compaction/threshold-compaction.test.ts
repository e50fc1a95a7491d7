/**
 * The compaction extension in real turns (PiTurnRunner, scripted model):
 * a request estimated above the window minus the reserve is preceded by a
 * summary request through the hook's auxiliary stream function, the
 * history is replaced by a record, the summary and the newest messages, and
 * the summary's usage is the turn's auxiliary usage.
 */
import type { AgentMessage } from "@turnkit/agent-loop";
import {
  assertRuntimeEventSequence,
  assertToolCallsAnswered,
  assistantMessage,
  createRecordingTool,
  createScriptedModel,
  requestText,
  response,
  toolCall,
  toolResultMessage,
  usageOf,
  userMessage,
  type ScriptEntry,
} from "@turnkit/agent-core/testing";
import { describe, expect, it } from "vitest";
import { COMPACTION_SUMMARY_SYSTEM_PROMPT, type CompactionRecord } from "../../src/index.js";
import { runCompactedTurn } from "../support/compacted-turn.js";

const WINDOW = 10_000;
const chars = (tokens: number, letter = "x") => letter.repeat(tokens * 4);

/** The scripted model with a 10,000-token window. */
const modelWith = (script: ScriptEntry[]) => createScriptedModel(script, { model: { contextWindow: WINDOW } });

/** Two earlier turns; the second response reports 8,600 tokens of context. */
function twoTurns(): AgentMessage[] {
  return [
    userMessage("Please look at the parser.", { timestamp: 1 }),
    assistantMessage([toolCall("read", { path: "parser.ts" }, { id: "r1" })], { timestamp: 2 }),
    toolResultMessage("r1", "read", chars(2_000), { timestamp: 3 }),
    assistantMessage("The parser drops trailing commas.", { timestamp: 4 }),
    userMessage(`Second question: ${chars(400, "q")}`, { timestamp: 5 }),
    assistantMessage(chars(600, "a"), { usage: usageOf(8_500, 100), timestamp: 6 }),
  ];
}

const recordOf = (messages: readonly AgentMessage[]): CompactionRecord => {
  const first = messages[0];
  if (first?.role !== "host") throw new Error(`expected the compaction record first, got ${first?.role}`);
  return first.data as CompactionRecord;
};

describe("threshold compaction with a model summary", () => {
  it("summarises the older turns through auxiliaryStreamFn and sends the summary with the newest turn", async () => {
    const turn = await runCompactedTurn({
      model: modelWith([
        response("The user asked why the parser fails; it drops trailing commas.", { usage: usageOf(3_000, 200, 0.5) }),
        response("Here is the fix.", { usage: usageOf(2_000, 50) }),
      ]),
      compaction: { reserveTokens: 2_000, keepRecentTokens: 800 },
      input: { history: twoTurns(), userMessage: { text: "Now fix it." } },
    });

    expect(turn.outcome).toEqual({ kind: "completed" });
    assertRuntimeEventSequence(turn.events);
    // The summary request came first, with its own system prompt and the older turns as text.
    expect(turn.requests).toHaveLength(2);
    const summaryRequest = turn.requests[0]!;
    expect(summaryRequest.context.systemPrompt).toBe(COMPACTION_SUMMARY_SYSTEM_PROMPT);
    expect(summaryRequest.context.tools ?? []).toEqual([]);
    const asked = requestText(summaryRequest);
    expect(asked).toContain("[User]: Please look at the parser.");
    expect(asked).toContain('[Tool call] read {"path":"parser.ts"}');
    expect(asked).toContain("[Tool result read]: xxxx");
    expect(asked).toContain("more characters left out");
    expect(asked).not.toContain("Second question");
    expect(asked).toContain("## Next steps");

    // The main request: the summary as user input, then the kept turn and the new message.
    const main = turn.requests[1]!;
    expect(main.context.messages.map((message) => message.role)).toEqual(["user", "user", "assistant", "user"]);
    expect(requestText(main)).toContain("The user asked why the parser fails; it drops trailing commas.");
    expect(JSON.stringify(main.context.messages)).not.toContain("Please look at the parser.");

    // The host stored the replacement: record, summary, kept messages, then the turn's answer.
    const replaced = turn.historyChanges.find((change) => change.reason === "replaceMessages");
    expect(replaced?.reason === "replaceMessages" && replaced.metadata?.compaction).toEqual(recordOf(turn.transcript));
    expect(turn.transcript.map((message) => message.role)).toEqual([
      "host",
      "hidden",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(turn.transcript[1]).toMatchObject({ role: "hidden", source: "compaction" });
    expect(recordOf(turn.transcript)).toMatchObject({
      reason: "threshold",
      summaries: ["The user asked why the parser fails; it drops trailing commas."],
      summarisedMessages: 4,
      keptMessages: 3,
      splitTurn: false,
      foldedChain: false,
      summaryModel: `${turn.model.model.provider}/${turn.model.model.id}`,
      summaryUsage: { input: 3_000, output: 200 },
    });
    const record = recordOf(turn.transcript);
    expect(record.tokensBefore).toBeGreaterThan(WINDOW - 2_000);
    expect(record.tokensAfter).toBeLessThan(WINDOW - 2_000);

    // The summary's usage is the turn's auxiliary usage.
    const terminal = turn.events.at(-1)!;
    expect(terminal.type === "session.status" && terminal.payload.usage).toMatchObject({
      auxiliary: { input: 3_000, output: 200, cost: { total: 0.5 } },
      main: { input: 2_000, output: 50 },
      attempts: { main: 1, auxiliary: 1 },
    });
    expect(turn.notices).toEqual([
      { type: "compacted", sessionId: "session-1", turnId: "turn-1", requestIndex: 0, record },
    ]);
    // The turn's trace names what was compacted.
    const traces = turn.writer.traces().filter((trace) => trace.phase === "history");
    expect(traces).toEqual([
      {
        phase: "history",
        level: "info",
        message:
          `compaction (threshold): 4 older messages summarised by ${record.summaryModel}, 3 kept; ` +
          `about ${record.tokensBefore} -> ${record.tokensAfter} tokens`,
        attrs: { requestIndex: 0, reason: "request", previousMessages: 7, messages: 5 },
      },
    ]);
  });

  it("does nothing below the threshold: no summary request, no replacement", async () => {
    const turn = await runCompactedTurn({
      model: modelWith(["Fine."]),
      compaction: { reserveTokens: 1_000 },
      input: { history: twoTurns(), userMessage: { text: "Thanks." } },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests).toHaveLength(1);
    expect(turn.historyChanges.every((change) => change.reason === "messageDelta")).toBe(true);
    expect(turn.notices).toEqual([]);
  });

  it("still fires when the newest response failed with a 529 and reported no usage", async () => {
    const history = [
      ...twoTurns(),
      userMessage("Try again.", { timestamp: 7 }),
      assistantMessage("", { stopReason: "error", errorMessage: "529 overloaded_error: Overloaded", timestamp: 8 }),
    ];
    const turn = await runCompactedTurn({
      model: modelWith(["Summary.", "Answer."]),
      compaction: { reserveTokens: 2_000, keepRecentTokens: 800 },
      input: { history, userMessage: { text: "Once more." } },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests[0]!.context.systemPrompt).toBe(COMPACTION_SUMMARY_SYSTEM_PROMPT);
    expect(recordOf(turn.transcript).reason).toBe("threshold");
  });

  it("splits one long turn inside its steps and keeps every tool call with its result", async () => {
    const read = createRecordingTool("read", { answer: () => ({ content: [{ type: "text", text: chars(500) }] }) });
    const turn = await runCompactedTurn({
      model: modelWith([
        response(toolCall("read", { value: "a" }), { usage: usageOf(2_000, 50) }),
        response([toolCall("read", { value: "b" }), toolCall("read", { value: "c" })], { usage: usageOf(5_000, 50) }),
        response(toolCall("read", { value: "d" }), { usage: usageOf(8_500, 50) }),
        response("Summary of the first steps.", { usage: usageOf(1_000, 20) }),
        response("Done.", { usage: usageOf(3_000, 10) }),
      ]),
      compaction: { reserveTokens: 1_000, keepRecentTokens: 1_200 },
      input: { tools: [read], userMessage: { text: "Read all four files." } },
    });

    expect(turn.outcome).toEqual({ kind: "completed" });
    assertToolCallsAnswered(turn.transcript);
    expect(read.calls.map((call) => call.input.value)).toEqual(["a", "b", "c", "d"]);
    // Requests: three steps, the summary (before the fourth step's request), the fourth step.
    expect(turn.requests.map((request) => request.context.systemPrompt === COMPACTION_SUMMARY_SYSTEM_PROMPT)).toEqual([
      false,
      false,
      false,
      true,
      false,
    ]);
    expect(requestText(turn.requests[3]!)).toContain("[User]: Read all four files.");
    expect(requestText(turn.requests[3]!)).toContain("State that request exactly.");
    // The last step's request: the summary, then the kept step with its call and result.
    const last = turn.requests[4]!.context.messages;
    expect(last.map((message) => message.role)).toEqual(["user", "assistant", "toolResult"]);
    const call =
      last[1]!.role === "assistant" ? last[1]!.content.find((block) => block.type === "toolCall") : undefined;
    expect(last[2]!.role === "toolResult" && last[2]!.toolCallId).toBe(call?.type === "toolCall" && call.id);
    expect(recordOf(turn.transcript)).toMatchObject({ splitTurn: true, summarisedMessages: 6, keptMessages: 2 });
    expect(turn.notices.map((notice) => [notice.type, notice.requestIndex])).toEqual([["compacted", 3]]);
  });
});

describe("a summary model with a small window", () => {
  it("gets the newest part of a conversation too long for it, with a note of what was left out", async () => {
    const model = modelWith(["Summary of the newest part.", "Answer."]);
    const summaryModel = { ...model.model, id: "small-summariser", contextWindow: 3_000 };
    const history: AgentMessage[] = [];
    for (let index = 1; index <= 12; index += 1) {
      history.push(userMessage(`Question ${index}: ${chars(100, "q")}`, { timestamp: index * 2 }));
      history.push(assistantMessage(`Answer ${index}: ${chars(100, "a")}`, { timestamp: index * 2 + 1 }));
    }
    history.push(assistantMessage("Noted.", { usage: usageOf(9_000, 10), timestamp: 100 }));
    const turn = await runCompactedTurn({
      model,
      compaction: { reserveTokens: 1_000, keepRecentTokens: 300, summaryModel, summaryMaxTokens: 500 },
      input: { history, userMessage: { text: "Go on." } },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests[0]!.model.id).toBe("small-summariser");
    const asked = requestText(turn.requests[0]!);
    expect(asked.length).toBeLessThan(2_500 * 0.75 * 4);
    expect(asked).toMatch(/^<conversation>\n\[… the oldest \d+ characters of the conversation were left out/);
    expect(asked).not.toContain("Question 1:");
    expect(asked).toContain("Question 11:");
    expect(recordOf(turn.transcript)).toMatchObject({ summaryModel: `${summaryModel.provider}/small-summariser` });
  });
});

describe("chained summaries", () => {
  /** Turn 1 compacts; turn 2, on turn 1's stored history, compacts again. */
  async function twoCompactions(maxSummaryChainTokens?: number) {
    const options = { reserveTokens: 2_000, keepRecentTokens: 800, maxSummaryChainTokens };
    const first = await runCompactedTurn({
      model: modelWith(["First summary.", response(chars(900, "b"), { usage: usageOf(8_900, 100) })]),
      compaction: options,
      input: { history: twoTurns(), userMessage: { text: `Third question: ${chars(300, "t")}` } },
    });
    const second = await runCompactedTurn({
      model: modelWith(["Second summary.", "Answer."]),
      compaction: options,
      input: { history: first.transcript, turnId: "turn-2", userMessage: { text: "Fourth question." } },
    });
    return { first, second };
  }

  it("keeps the earlier summary verbatim and summarises only what is new", async () => {
    const { first, second } = await twoCompactions();
    expect(recordOf(first.transcript).summaries).toEqual(["First summary."]);
    expect(second.outcome).toEqual({ kind: "completed" });
    const asked = requestText(second.requests[0]!);
    expect(asked).toContain(
      '<earlier-summaries>\n<summary part="1">\nFirst summary.\n</summary>\n</earlier-summaries>',
    );
    expect(asked).toContain("do not repeat them, summarise only the conversation");
    // The earlier summary is context, not conversation: it is not summarised again.
    expect(asked.split("First summary.")).toHaveLength(2);
    expect(asked).toContain("Third question");
    expect(asked).not.toContain("Second question");
    expect(recordOf(second.transcript)).toMatchObject({
      summaries: ["First summary.", "Second summary."],
      foldedChain: false,
    });
    expect(requestText(second.requests[1]!)).toContain(
      'compacted into these summaries, oldest first:\n\n<summary part="1">\nFirst summary.\n</summary>',
    );
  });

  it("folds the chain into one summary once it passes maxSummaryChainTokens", async () => {
    const { second } = await twoCompactions(1);
    expect(requestText(second.requests[0]!)).toContain("Fold them and the conversation into one summary");
    expect(recordOf(second.transcript)).toMatchObject({ summaries: ["Second summary."], foldedChain: true });
  });
});
