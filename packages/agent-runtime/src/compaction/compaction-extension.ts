import type { BeforeLlmCallDecision, BeforeLlmCallEvent } from "@turnkit/agent-core";
import { createExtension } from "../extension-factories.js";
import type { Extension } from "../extension.js";
import {
  type CompactionNotice,
  type CompactionOptions,
  type ResolvedCompactionOptions,
  resolveCompactionOptions,
} from "./compaction-options.js";
import { planCompaction } from "./compaction-plan.js";
import { type CompactionReason, type CompactionRecord, compactionMessages } from "./compaction-record.js";
import { requestSummary } from "./summary-request.js";
import { estimateContextTokens } from "./token-estimate.js";

/** What the extension remembers about the turn a session is running. */
interface TurnMemory {
  turnId: string;
  /** A summary request failed in this turn: no further compaction is tried in it. */
  summaryFailed: boolean;
  /** A threshold compaction of this turn left the history above the threshold: no further threshold compaction in it. */
  stillOverThreshold: boolean;
}

/**
 * Keeps a session inside its model's context window by summarising its
 * older part with a model request.
 *
 * Before each model request (`before_llm_call`), it estimates the tokens of
 * the history (the provider's usage of the last request where it can trust
 * it, an estimate of the messages since, or of everything) and, when that is
 * above the context window minus `reserveTokens`, asks a model for a summary
 * of everything but about `keepRecentTokens` of the newest messages, through
 * the hook's `auxiliaryStreamFn` (so the request has the turn's options,
 * timeouts, model fallback and a retry budget of its own, and its usage is
 * the turn's `auxiliary` usage). The history is then replaced (`replaceMessages`, which
 * the host persists) by a host-only record of the compaction, one hidden
 * message with the summaries, and the kept messages; the turn's `debug.trace`
 * (phase `history`) says in words what was summarised, by which model, what
 * was kept and the tokens before and after. The cut never separates
 * a tool call from its result and may fall inside a long turn. A later
 * compaction keeps the earlier summaries as a chain and summarises only
 * what is new, until the chain passes `maxSummaryChainTokens` and is folded
 * into one. It compacts the messages its hook is shown, so it belongs before
 * extensions that rewrite a request (`replaceRequestMessages`).
 *
 * When a request overflows the context window, the runner runs the hooks
 * again (reason `overflow`) and this extension compacts harder: the request
 * is resent once with the compacted history (`recoverOverflow`, default on).
 *
 * A failed summary request (rate limited, overloaded, timed out, empty)
 * never loses history: the request goes out uncompacted and no other
 * compaction is tried in that turn, so a second overflow fails the turn
 * with `context_overflow`. A provider's 429 or 529 on the main request is
 * not an overflow and never triggers a compaction.
 */
export function createCompactionExtension(options: CompactionOptions = {}): Extension {
  const settings = resolveCompactionOptions(options);
  const memories = new Map<string, TurnMemory>();
  const memoryOf = (sessionId: string, turnId: string): TurnMemory => {
    let memory = memories.get(sessionId);
    if (memory?.turnId !== turnId) {
      memory = { turnId, summaryFailed: false, stillOverThreshold: false };
      memories.set(sessionId, memory);
    }
    return memory;
  };
  return createExtension({
    id: settings.id,
    description: "summarises older history with a model before it outgrows the context window",
    hooks: {
      before_llm_call: (event) => compactBeforeRequest(event, settings, memoryOf(event.sessionId, event.turnId)),
      turn_end: (_event, ctx) => {
        memories.delete(ctx.sessionId);
      },
    },
  });
}

async function compactBeforeRequest(
  event: BeforeLlmCallEvent,
  settings: ResolvedCompactionOptions,
  memory: TurnMemory,
): Promise<BeforeLlmCallDecision | undefined> {
  const reason: CompactionReason = event.reason === "overflow" ? "overflow" : "threshold";
  if (reason === "overflow" && !settings.recoverOverflow) return undefined;
  if (memory.summaryFailed || (reason === "threshold" && memory.stillOverThreshold)) return undefined;
  const plan = planCompaction(event.messages, reason, {
    contextWindow: settings.contextWindow ?? event.model.contextWindow ?? 0,
    reserveTokens: settings.reserveTokens,
    keepRecentTokens: settings.keepRecentTokens,
    maxSummaryChainTokens: settings.maxSummaryChainTokens,
  });
  if (!plan) return undefined;

  const summaryModel = settings.summaryModel ?? event.model;
  const summary = await requestSummary({
    streamFn: event.auxiliaryStreamFn,
    model: summaryModel,
    apiKey: settings.summaryApiKey,
    maxTokens: settings.summaryMaxTokens,
    prompt: settings.summaryPrompt,
    messages: plan.summarised,
    earlierSummaries: plan.earlierSummaries,
    foldChain: plan.foldChain,
    splitTurn: plan.cut.splitTurn,
    toolResultMaxChars: settings.toolResultMaxChars,
    signal: event.signal,
  });
  const where = { sessionId: event.sessionId, turnId: event.turnId, requestIndex: event.requestIndex };
  if (!summary.ok) {
    if (summary.aborted) return undefined;
    memory.summaryFailed = true;
    notify(settings, { type: "summary_failed", ...where, reason, error: summary.error });
    return undefined;
  }

  const kept = event.messages.slice(plan.cut.index);
  const record: CompactionRecord = {
    reason,
    summaries: plan.foldChain ? [summary.text] : [...plan.earlierSummaries, summary.text],
    summarisedMessages: plan.summarised.length,
    keptMessages: kept.length,
    splitTurn: plan.cut.splitTurn,
    foldedChain: plan.foldChain,
    tokensBefore: plan.tokensBefore,
    tokensAfter: 0,
    summaryModel: summary.model,
    summaryUsage: summary.usage,
  };
  const replacement = [...compactionMessages(record), ...kept];
  // Every kept response's usage describes the history before the compaction: estimate everything.
  record.tokensAfter = estimateContextTokens(replacement, replacement.length).tokens;
  if (reason === "threshold" && record.tokensAfter > plan.budget) memory.stillOverThreshold = true;
  notify(settings, { type: "compacted", ...where, record });
  return {
    type: "replaceMessages",
    messages: replacement,
    metadata: { compaction: record },
    description: describeCompaction(record),
  };
}

/** What a compaction replaced, in words, for the turn's trace. */
function describeCompaction(record: CompactionRecord): string {
  const what = record.splitTurn ? "messages (cutting inside a turn)" : "messages";
  const chain = record.foldedChain
    ? "; the earlier summaries were folded into it"
    : record.summaries.length > 1
      ? `; ${record.summaries.length - 1} earlier summaries kept`
      : "";
  return (
    `compaction (${record.reason}): ${record.summarisedMessages} older ${what} summarised by ${record.summaryModel}, ` +
    `${record.keptMessages} kept${chain}; about ${record.tokensBefore} -> ${record.tokensAfter} tokens`
  );
}

function notify(settings: ResolvedCompactionOptions, notice: CompactionNotice): void {
  try {
    const result: unknown = settings.onCompaction?.(notice);
    // An async observer's rejection is dropped like a throw.
    if (result instanceof Promise) result.catch(() => {});
  } catch {
    // An observer's failure never changes the turn.
  }
}
