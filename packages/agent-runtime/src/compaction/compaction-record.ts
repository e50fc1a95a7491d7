import type { Usage } from "@mariozechner/pi-ai";
import { type HiddenContextMessage, type HostOnlyMessage, createHiddenMessage } from "@turnkit/agent-core";
import type { AgentMessage } from "@turnkit/agent-loop";
import { isList, isRecord } from "@turnkit/agent-loop/internal";
import { COMPACTION_RECORD_KIND, COMPACTION_SUMMARY_SOURCE } from "../defaults.js";

/** Why a compaction ran: the estimate crossed the threshold, or the provider reported a context overflow. */
export type CompactionReason = "threshold" | "overflow";

/**
 * What one compaction did, kept as the `data` of the host-only message
 * (`{ role: "host", kind: "compaction" }`) it puts first in the new
 * history, and passed as `metadata.compaction` of the `replaceMessages`
 * change. Never sent to a model; the next compaction reads its chain of
 * summaries from it.
 */
export interface CompactionRecord {
  /** What triggered it. */
  reason: CompactionReason;
  /**
   * The summaries the model now sees instead of the compacted history,
   * oldest first: earlier compactions' summaries kept verbatim, then this
   * one's (one entry when this compaction folded the chain).
   */
  summaries: string[];
  /** How many messages this compaction replaced (an earlier record and summary not counted). */
  summarisedMessages: number;
  /** How many of the newest messages follow the summary verbatim. */
  keptMessages: number;
  /** True when the cut fell inside a turn (the kept part starts with an assistant message). */
  splitTurn: boolean;
  /** True when the earlier summaries were folded into this one because the chain grew past its limit. */
  foldedChain: boolean;
  /** Estimated tokens of the history before the compaction. */
  tokensBefore: number;
  /** Estimated tokens of the history after it (every message estimated). */
  tokensAfter: number;
  /** The model that wrote the summary, `provider/id`: the summary model, or the `llm.fallback` model the request fell back to. */
  summaryModel: string;
  /** What the summary request reported (it also counts as auxiliary usage in the turn's report). */
  summaryUsage: Usage;
}

/** The newest compaction in a history: its record, where it is, and where the messages after its summary begin. */
export interface FoundCompaction {
  /** Index of the host-only record. */
  index: number;
  /** The record's data. */
  record: CompactionRecord;
  /** Index of the first message after the record and its summary message. */
  end: number;
}

/** The newest compaction record in `messages`, or `undefined`. A record whose data is malformed is ignored. */
export function findLatestCompaction(messages: readonly AgentMessage[]): FoundCompaction | undefined {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (message.role !== "host" || message.kind !== COMPACTION_RECORD_KIND || !isCompactionRecord(message.data)) {
      continue;
    }
    const next = messages[index + 1];
    const hasSummary = next?.role === "hidden" && next.source === COMPACTION_SUMMARY_SOURCE;
    return { index, record: message.data, end: index + (hasSummary ? 2 : 1) };
  }
  return undefined;
}

/** The two messages a compaction puts first: the host-only record, then the summaries as one hidden message. */
export function compactionMessages(record: CompactionRecord): [HostOnlyMessage, HiddenContextMessage] {
  const summary = createHiddenMessage(renderSummaries(record.summaries), COMPACTION_SUMMARY_SOURCE);
  return [{ role: "host", kind: COMPACTION_RECORD_KIND, data: record, timestamp: summary.timestamp }, summary];
}

/** The text the model reads in place of the compacted history. */
export function renderSummaries(summaries: readonly string[]): string {
  const parts = summaries.map((text, index) =>
    summaries.length === 1 ? `<summary>\n${text}\n</summary>` : `<summary part="${index + 1}">\n${text}\n</summary>`,
  );
  const heading =
    summaries.length === 1
      ? "The conversation before this point was compacted into this summary:"
      : "The conversation before this point was compacted into these summaries, oldest first:";
  return [heading, ...parts].join("\n\n");
}

function isCompactionRecord(data: unknown): data is CompactionRecord {
  if (!isRecord(data)) return false;
  const { summaries, keptMessages } = data as Partial<CompactionRecord>;
  return (
    isList(summaries) &&
    Array.from(summaries).every((summary) => typeof summary === "string") &&
    Number.isInteger(keptMessages) &&
    (keptMessages as number) >= 0
  );
}
