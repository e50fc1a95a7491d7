import type { AgentMessage } from "@turnkit/agent-loop";
import { type CompactionCut, findCompactionCut } from "./compaction-cut.js";
import { type CompactionReason, findLatestCompaction, renderSummaries } from "./compaction-record.js";
import { estimateContextTokens, estimateMessageTokens } from "./token-estimate.js";

/** The limits a plan is made with (the extension's options and the model's window). */
export interface CompactionLimits {
  /** The model's context window; 0 or less: unknown (no threshold compaction). */
  contextWindow: number;
  /** Tokens kept free below the window. */
  reserveTokens: number;
  /** Tokens of the newest history to keep verbatim. */
  keepRecentTokens: number;
  /** Tokens the chain of summaries may reach before it is folded. */
  maxSummaryChainTokens: number;
}

/** What a compaction will summarise and keep. */
export interface CompactionPlan {
  /** Why it runs. */
  reason: CompactionReason;
  /** Where the history is cut. */
  cut: CompactionCut;
  /** The messages the new summary covers (an earlier record and summary left out). */
  summarised: AgentMessage[];
  /** The earlier compactions' summaries, oldest first. */
  earlierSummaries: string[];
  /** True when the earlier summaries are folded into the new one. */
  foldChain: boolean;
  /** Estimated tokens of the history now. */
  tokensBefore: number;
  /** `contextWindow - reserveTokens` (0 or less when the window is unknown or too small). */
  budget: number;
}

/**
 * Decides whether and where to compact `messages` before a request.
 * `threshold`: only when the estimate (provider usage where trustworthy,
 * see `estimateContextTokens`) is above `contextWindow - reserveTokens`.
 * `overflow`: the provider already said it does not fit, so always, keeping
 * about half of the current estimate (at least half, up to the nearest cut
 * point) when that is less than `keepRecentTokens`. `undefined` when there is nothing
 * to do or no cut point allows it.
 */
export function planCompaction(
  messages: readonly AgentMessage[],
  reason: CompactionReason,
  limits: CompactionLimits,
): CompactionPlan | undefined {
  const previous = findLatestCompaction(messages);
  // Responses kept by the previous compaction report the usage of the history before it.
  const usableFrom = previous ? previous.end + previous.record.keptMessages : 0;
  const tokensBefore = estimateContextTokens(messages, usableFrom).tokens;
  const budget = limits.contextWindow > 0 ? limits.contextWindow - limits.reserveTokens : 0;
  if (reason === "threshold" && (budget <= 0 || tokensBefore <= budget)) return undefined;

  let keep = limits.keepRecentTokens;
  if (budget > 0) keep = Math.min(keep, Math.floor(budget / 2));
  if (reason === "overflow") keep = Math.min(keep, Math.floor(tokensBefore / 2));
  const start = previous?.end ?? 0;
  const cut = findCompactionCut(messages, { start, keepRecentTokens: Math.max(1, keep) });
  if (!cut) return undefined;

  const earlierSummaries = previous ? [...previous.record.summaries] : [];
  const chainTokens = estimateMessageTokens({ role: "user", content: renderSummaries(earlierSummaries), timestamp: 0 });
  return {
    reason,
    cut,
    summarised: [...messages.slice(0, previous?.index ?? 0), ...messages.slice(start, cut.index)],
    earlierSummaries,
    foldChain: earlierSummaries.length > 0 && chainTokens >= limits.maxSummaryChainTokens,
    tokensBefore,
    budget,
  };
}
