import type { RuntimeEvent } from "@turnkit/protocol";

/** What one turn cost, counted from its `RuntimeEvent`s alone. */
export interface TurnStats {
  /** Assistant messages that finished (one per model request that answered). */
  steps: number;
  /** Tool calls that reached a final status (finished or failed). */
  toolCalls: number;
  /** Prompt tokens, cache reads and writes included. */
  tokensIn: number;
  tokensOut: number;
  /** In dollars, as the provider's usage reports it (0 for models without prices). */
  cost: number;
}

/** A fresh, all-zero {@link TurnStats}. */
export function emptyTurnStats(): TurnStats {
  return { steps: 0, toolCalls: 0, tokensIn: 0, tokensOut: 0, cost: 0 };
}

/** Adds what `event` tells to `stats` (in place). Events other than `stream.resp` change nothing. */
export function countTurnEvent(stats: TurnStats, event: RuntimeEvent): void {
  if (event.type !== "stream.resp") return;
  const { chunk } = event.payload;
  if (chunk.kind === "tool_call" && (chunk.status === "finished" || chunk.status === "failed")) stats.toolCalls += 1;
  if (chunk.kind !== "finish") return;
  stats.steps += 1;
  const usage = chunk.usage;
  if (!usage) return;
  stats.tokensIn += usage.input + usage.cacheRead + usage.cacheWrite;
  stats.tokensOut += usage.output;
  stats.cost += usage.cost.total;
}

/**
 * One line: `5 steps · 6 tool calls · 14,130 tokens in / 408 out · $0.0123 · 3.2 s`.
 * The cost appears only with `showCost` (a model that has prices).
 */
export function formatTurnSummary(stats: TurnStats, options: { wallMs: number; showCost: boolean }): string {
  const parts = [
    plural(stats.steps, "step"),
    plural(stats.toolCalls, "tool call"),
    `${stats.tokensIn.toLocaleString("en-US")} tokens in / ${stats.tokensOut.toLocaleString("en-US")} out`,
  ];
  if (options.showCost) parts.push(`$${stats.cost.toFixed(4)}`);
  parts.push(formatDuration(options.wallMs));
  return parts.join(" · ");
}

/** `340 ms` below a second, else `1.2 s`. */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
