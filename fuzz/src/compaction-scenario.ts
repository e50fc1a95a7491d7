/**
 * Generated compaction decisions: a history of one to five turns in English
 * or Chinese (tool calls, long results, reported usage or none), the
 * compaction extension's limits, and what the summary requests (an answer, a
 * 429, a 529, an empty answer, a hang that times out, a context overflow)
 * and the main requests (text, a tool call,
 * a context overflow, a 529) answer. One or two turns run through a real
 * `PiTurnRunner` with a runtime holding the extension; the second starts
 * from the first one's stored history, so summaries chain.
 */
import type { AgentMessage } from "@turnkit/agent-loop";
import {
  assistantMessage,
  createRecordingTool,
  createScriptedModel,
  createVirtualClock,
  hang,
  response,
  runCheckedTurn,
  toolCall,
  toolResultMessage,
  usageOf,
  userMessage,
  type ScriptEntry,
  type ScriptedTurnResult,
} from "@turnkit/agent-core/testing";
import type { StreamFn } from "@turnkit/agent-core";
import {
  COMPACTION_SUMMARY_SYSTEM_PROMPT,
  type CompactionNotice,
  type CompactionRecord,
  createAgentRuntime,
  createCompactionExtension,
} from "@turnkit/agent-runtime";
import fc from "fast-check";
import { oneIn } from "./response-arbitraries.js";
import {
  HISTORY_SCRIPTS,
  type HistoryScript,
  providerTokens,
  summaryRequestProblems,
  textOfTokens,
} from "./summary-window.js";

const WINDOW = 10_000;

type SummaryAnswer = "ok" | "429" | "529" | "empty" | "timeout" | "overflow";
type MainAnswer = "text" | "tool" | "overflow" | "529";

interface TurnSpec {
  summaries: SummaryAnswer[];
  mains: MainAnswer[];
}

/** A generated case. */
export interface CompactionScenario {
  /** The script the history is written in (English: 4 characters a token; Chinese: 1). */
  script: HistoryScript;
  /** Earlier turns: sizes in tokens of the user text, each tool result, and the answer. */
  history: { user: number; results: number[]; answer: number; reportedInput?: number }[];
  reserveTokens: number;
  keepRecentTokens: number;
  maxSummaryChainTokens: number;
  recoverOverflow: boolean;
  turns: TurnSpec[];
  /** Output tokens each answered summary reports (a main answer reports 5). */
  summaryOutput: number;
  /** The turns' `budget.maxOutputTokens`; absent: none. */
  maxOutputTokens?: number;
}

const OVERFLOW = "400 prompt is too long: 213462 tokens > 200000 maximum";
const OVERLOADED = '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
const RATE_LIMITED = "429 Too Many Requests: rate limit exceeded";

const turnSpecArbitrary: fc.Arbitrary<TurnSpec> = fc.record({
  summaries: fc.array(fc.constantFrom<SummaryAnswer>("ok", "ok", "429", "529", "empty", "timeout", "overflow"), {
    maxLength: 3,
  }),
  mains: fc.array(fc.constantFrom<MainAnswer>("text", "tool", "tool", "overflow", "529"), {
    minLength: 1,
    maxLength: 4,
  }),
});

/** Cases: histories around the 10,000-token window, limits from tight to generous, one or two turns. */
export const compactionScenarioArbitrary: fc.Arbitrary<CompactionScenario> = fc.record({
  script: fc.constantFrom(...HISTORY_SCRIPTS),
  history: fc.array(
    fc.record(
      {
        user: fc.integer({ min: 10, max: 2_000 }),
        results: fc.array(fc.integer({ min: 10, max: 3_000 }), { maxLength: 3 }),
        answer: fc.integer({ min: 10, max: 1_500 }),
        reportedInput: fc.integer({ min: 100, max: 12_000 }),
      },
      { requiredKeys: ["user", "results", "answer"] },
    ),
    { minLength: 1, maxLength: 5 },
  ),
  reserveTokens: fc.integer({ min: 500, max: 4_000 }),
  keepRecentTokens: fc.integer({ min: 100, max: 4_000 }),
  maxSummaryChainTokens: fc.integer({ min: 10, max: 4_000 }),
  recoverOverflow: fc.boolean(),
  turns: fc.array(turnSpecArbitrary, { minLength: 1, maxLength: 2 }),
  summaryOutput: fc.constantFrom(1, 40, 300),
  maxOutputTokens: oneIn(3, fc.constantFrom(6, 50, 200, 1_000)),
});

/** A main answer's output tokens (text or a tool call). */
const MAIN_OUTPUT = 5;

function historyOf(scenario: CompactionScenario): AgentMessage[] {
  const chars = (tokens: number, letter: string) => textOfTokens(tokens, letter, scenario.script);
  const messages: AgentMessage[] = [];
  let time = 1;
  scenario.history.forEach((turn, index) => {
    messages.push(userMessage(`q${index} ${chars(turn.user, "u")}`, { timestamp: time++ }));
    turn.results.forEach((size, call) => {
      const id = `t${index}c${call}`;
      messages.push(assistantMessage([toolCall("read", { path: id }, { id })], { timestamp: time++ }));
      messages.push(toolResultMessage(id, "read", chars(size, "r"), { timestamp: time++ }));
    });
    const usage = turn.reportedInput === undefined ? {} : { usage: usageOf(turn.reportedInput, turn.answer) };
    messages.push(assistantMessage(`a${index} ${chars(turn.answer, "a")}`, { ...usage, timestamp: time++ }));
  });
  return messages;
}

function summaryEntry(answer: SummaryAnswer, index: number, output: number): ScriptEntry {
  switch (answer) {
    case "ok":
      return response(`summary ${index}`, { usage: usageOf(2_000, output) });
    case "429":
      return assistantMessage("", { stopReason: "error", errorMessage: RATE_LIMITED });
    case "529":
      return assistantMessage("", { stopReason: "error", errorMessage: OVERLOADED });
    case "empty":
      return "";
    case "timeout":
      return hang();
    case "overflow":
      return assistantMessage("", { stopReason: "error", errorMessage: OVERFLOW });
    default: {
      const unreachable: never = answer;
      return unreachable;
    }
  }
}

function mainEntry(answer: MainAnswer, index: number): ScriptEntry {
  switch (answer) {
    case "text":
      return response(`answer ${index}`, { usage: usageOf(3_000, MAIN_OUTPUT) });
    case "tool":
      return response(toolCall("read", { path: `n${index}` }), { usage: usageOf(3_000, MAIN_OUTPUT) });
    case "overflow":
      return assistantMessage("", { stopReason: "error", errorMessage: OVERFLOW });
    case "529":
      return assistantMessage("", { stopReason: "error", errorMessage: OVERLOADED });
    default: {
      const unreachable: never = answer;
      return unreachable;
    }
  }
}

interface TurnRun {
  result: ScriptedTurnResult;
  notices: CompactionNotice[];
  history: AgentMessage[];
  /** What each model request was, in order. */
  requests: ("summary" | "main")[];
  /** The answers the main requests were given, in order. */
  mainsServed: MainAnswer[];
  /** The answers the summary requests were given, in order. */
  summariesServed: SummaryAnswer[];
  /** The largest summary request, by the provider's count, plus its `maxTokens`. */
  largestSummary: number;
  /** Requests (in order, `summary` or `main`) sent when the turn's scripted output tokens had reached its budget. */
  pastBudget: string[];
  /** The system prompts of the requests `onLlmCallPreparedHook` was shown, in order. */
  shown: (string | undefined)[];
}

async function runOneTurn(
  scenario: CompactionScenario,
  spec: TurnSpec,
  history: AgentMessage[],
  index: number,
): Promise<TurnRun> {
  const clock = createVirtualClock({ autoAdvance: true });
  const summaries = createScriptedModel(
    [
      ...spec.summaries.map((answer, n) => summaryEntry(answer, n, scenario.summaryOutput)),
      ...Array.from({ length: 8 }, (_, n) => `summary ${n + 10}`),
    ],
    { model: { contextWindow: WINDOW }, clock },
  );
  const mains = createScriptedModel(
    [...spec.mains.map(mainEntry), ...Array.from({ length: 12 }, (_, n) => `answer ${n + 10}`)],
    { model: { contextWindow: WINDOW }, clock },
  );
  const requests: ("summary" | "main")[] = [];
  const mainsServed: MainAnswer[] = [];
  const summariesServed: SummaryAnswer[] = [];
  let largestSummary = 0;
  // Output tokens the scripts reported so far (their fallback answers report none), and what was sent past the budget.
  let spent = 0;
  const pastBudget: string[] = [];
  const shown: (string | undefined)[] = [];
  const router: StreamFn = (model, context, options) => {
    const kind = context.systemPrompt === COMPACTION_SUMMARY_SYSTEM_PROMPT ? "summary" : "main";
    if (scenario.maxOutputTokens !== undefined && spent >= scenario.maxOutputTokens)
      pastBudget.push(`${kind} request ${requests.length} at ${spent} output tokens`);
    if (kind === "summary") {
      requests.push("summary");
      const answer = spec.summaries[summariesServed.length];
      if (answer === "ok") spent += scenario.summaryOutput;
      summariesServed.push(answer ?? "ok");
      largestSummary = Math.max(largestSummary, providerTokens(context) + (options?.maxTokens ?? 0));
      return summaries.streamFn(model, context, options);
    }
    requests.push("main");
    const answer = spec.mains[mainsServed.length];
    if (answer === "text" || answer === "tool") spent += MAIN_OUTPUT;
    mainsServed.push(answer ?? "text");
    return mains.streamFn(model, context, options);
  };
  const notices: CompactionNotice[] = [];
  const runtime = await createAgentRuntime({
    base: [
      createCompactionExtension({
        reserveTokens: scenario.reserveTokens,
        keepRecentTokens: scenario.keepRecentTokens,
        maxSummaryChainTokens: scenario.maxSummaryChainTokens,
        recoverOverflow: scenario.recoverOverflow,
        onCompaction: (notice) => void notices.push(notice),
      }),
    ],
  });
  const turnId = `turn-${index + 1}`;
  const assembled = await runtime.assembleTurn({ sessionId: "session-1", turnId });
  const result = await runCheckedTurn({
    model: mains,
    input: {
      turnId,
      history,
      tools: [createRecordingTool("read")],
      userMessage: { text: `turn ${index + 1}` },
      llm: { model: mains.model, streamFn: router, firstEventTimeoutMs: 1_000 },
      hooks: {
        ...assembled.hooks,
        onLlmCallPreparedHook: (event) => void shown.push(event.context.systemPrompt),
      },
      ...(scenario.maxOutputTokens !== undefined && { budget: { maxOutputTokens: scenario.maxOutputTokens } }),
    },
    runnerOptions: { clock },
  });
  for (const end of assembled.turnEndHandlers) await end({ outcome: result.outcome });
  return { result, notices, history, requests, mainsServed, summariesServed, largestSummary, pastBudget, shown };
}

/**
 * Runs the case's turns and throws unless every compaction decision kept
 * the rules: a turn without a replacement stores the history it was given
 * unchanged; a replacement is the record, the summary and a suffix of the
 * history it replaced that answers every tool call it holds (the runner's
 * checks also hold for the whole transcript); a failed summary is the
 * turn's last summary request (no retry loop), at most one per turn; an
 * overflow compaction follows an overflow of the main request, at most
 * once per turn, and never with `recoverOverflow` off; a threshold
 * compaction starts above the window less the reserve; with a budget, no
 * request (summary or main) is sent once the output tokens the turn's
 * requests reported reached `maxOutputTokens`; `onLlmCallPreparedHook` is
 * shown each main request sent (an overflow resend too), no summary.
 */
export async function checkCompactionScenario(scenario: CompactionScenario): Promise<void> {
  let history = historyOf(scenario);
  for (const [index, spec] of scenario.turns.entries()) {
    const run = await runOneTurn(scenario, spec, history, index);
    checkTurn(scenario, run, index);
    history = run.result.transcript;
  }
}

function checkTurn(scenario: CompactionScenario, run: TurnRun, index: number): void {
  const fail = (problem: string) => {
    throw new Error(`compaction, turn ${index + 1}: ${problem}`);
  };
  const { result, notices, mainsServed } = run;
  // A summary's output tokens count for the turn's budget: once spent, nothing more is sent, summary or main.
  if (run.pastBudget.length > 0) fail(`sent past maxOutputTokens ${scenario.maxOutputTokens}: ${run.pastBudget[0]}`);
  // Without transport retries each main request sent (an overflow resend too) is shown once; a summary request never.
  const mainsSent = run.requests.filter((request) => request === "main").length;
  if (run.shown.length !== mainsSent || run.shown.includes(COMPACTION_SUMMARY_SYSTEM_PROMPT))
    fail(`onLlmCallPreparedHook was shown ${run.shown.length} requests, ${mainsSent} main requests were sent`);
  const replacements = result.historyChanges.filter((change) => change.reason === "replaceMessages");
  if (replacements.length === 0) {
    const head = result.transcript.slice(0, run.history.length);
    if (JSON.stringify(head) !== JSON.stringify(run.history)) fail("the history changed without a replacement");
  }
  for (const change of replacements) {
    if (change.reason !== "replaceMessages") continue;
    const [record, summary, ...kept] = change.messages;
    if (record?.role !== "host" || (record as { kind?: string }).kind !== "compaction")
      fail("a replacement does not start with the compaction record");
    if (summary?.role !== "hidden") fail("a replacement's second message is not the hidden summary");
    const data = (record as { data: CompactionRecord }).data;
    if (data.keptMessages !== kept.length)
      fail(`the record keeps ${data.keptMessages}, the replacement ${kept.length}`);
    const previous = change.previousMessages;
    const tail = previous.slice(previous.length - kept.length);
    if (JSON.stringify(tail) !== JSON.stringify(kept)) fail("the kept messages are not the newest of the history");
    const calls = new Set<string>();
    for (const message of kept) {
      if (message.role === "assistant")
        for (const block of message.content) if (block.type === "toolCall") calls.add(block.id);
      if (message.role === "toolResult" && !calls.has(message.toolCallId))
        fail(`kept result ${message.toolCallId} lost its call`);
    }
    if (data.reason === "threshold" && data.tokensBefore <= WINDOW - scenario.reserveTokens)
      fail(`a threshold compaction at ${data.tokensBefore} tokens, not above ${WINDOW - scenario.reserveTokens}`);
  }
  const failures = notices.filter((notice) => notice.type === "summary_failed");
  if (failures.length > 1) fail(`${failures.length} failed summaries in one turn: a compaction loop`);
  const compactions = notices.flatMap((notice) => (notice.type === "compacted" ? [notice.record] : []));
  // Every summary (one request, two when the first overflowed) is a compaction or the turn's one failure.
  const outcomes = compactions.length + failures.length;
  for (const problem of summaryRequestProblems(run.summariesServed, outcomes, run.largestSummary, WINDOW))
    fail(problem);
  if (failures.length === 1 && compactions.length > 0) {
    const failedAt = (failures[0] as { requestIndex: number }).requestIndex;
    const laterCompactions = notices.filter(
      (notice) => notice.type === "compacted" && notice.requestIndex > failedAt,
    ).length;
    if (laterCompactions > 0) fail("a compaction after a failed summary in the same turn");
  }
  const overflowCompactions = compactions.filter((record) => record.reason === "overflow");
  if (overflowCompactions.length > 1) fail("more than one overflow compaction in a turn");
  if (overflowCompactions.length > 0 && !scenario.recoverOverflow)
    fail("an overflow compaction with recoverOverflow off");
  if (overflowCompactions.length > 0 && !mainsServed.includes("overflow"))
    fail("an overflow compaction without an overflow (a 529 or 429 taken for one)");
}
