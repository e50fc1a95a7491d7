import type { RuntimeEvent, TurnTiming, TurnUsage } from "@turnkit/protocol";

/** What one turn cost and where its time went, as the turn's own events report it (nothing is added up here). */
export interface TurnStats {
  /** Steps the turn closed (the last step report's index + 1). */
  steps: number;
  /** Tool calls that reached a final status (finished or failed). */
  toolCalls: number;
  /** The turn's usage: running totals from each step's finish chunk, then the terminal status's. */
  usage: TurnUsage | undefined;
  /** Where the time went, from the terminal status. */
  timing: TurnTiming | undefined;
}

/** A fresh {@link TurnStats}: nothing reported yet. */
export function emptyTurnStats(): TurnStats {
  return { steps: 0, toolCalls: 0, usage: undefined, timing: undefined };
}

/**
 * Takes what `event` reports into `stats` (in place): a finished tool call,
 * a step report's running totals, the terminal status's usage and timing.
 */
export function readTurnEvent(stats: TurnStats, event: RuntimeEvent): void {
  if (event.type === "session.status") {
    if (event.payload.usage) stats.usage = event.payload.usage;
    if (event.payload.timing) stats.timing = event.payload.timing;
    return;
  }
  if (event.type !== "stream.resp") return;
  const { chunk } = event.payload;
  if (chunk.kind === "tool_call" && (chunk.status === "finished" || chunk.status === "failed")) stats.toolCalls += 1;
  if (chunk.kind === "finish" && chunk.step) {
    stats.steps = chunk.step.stepIndex + 1;
    stats.usage = chunk.step.turnUsage;
  }
}

/**
 * One line: `5 steps · 6 tool calls · 14,130 tokens in / 408 out · $0.0123 · 3.2 s`
 * (tokens in count cache reads and writes; the cost appears only with
 * `showCost`, a model that has prices).
 */
export function formatTurnSummary(stats: TurnStats, options: { showCost: boolean }): string {
  const total = stats.usage?.total;
  const tokensIn = total ? total.input + total.cacheRead + total.cacheWrite : 0;
  const parts = [
    plural(stats.steps, "step"),
    plural(stats.toolCalls, "tool call"),
    `${tokensIn.toLocaleString("en-US")} tokens in / ${(total?.output ?? 0).toLocaleString("en-US")} out`,
  ];
  if (options.showCost) parts.push(`$${(total?.cost.total ?? 0).toFixed(4)}`);
  parts.push(formatDuration(stats.timing?.wallMs ?? 0));
  return parts.join(" · ");
}

/**
 * Where the time went, one line:
 * `3 model requests (1 retried, 1 fell back) · 420 ms to first output · 2.4 s decoding · 35 ms in tools · 2.1 s retry waits`.
 */
export function formatTurnTiming(timing: TurnTiming): string {
  const { requests, toolCalls } = timing;
  // A request that fell back lists its models; its attempts on the first model are not retries.
  const fellBack = requests.filter((request) => request.models !== undefined).length;
  const retried = requests.filter((request) => request.models === undefined && request.attempts > 1).length;
  const sum = (values: (number | undefined)[]) => values.reduce<number>((total, value) => total + (value ?? 0), 0);
  const notes = [...(retried > 0 ? [`${retried} retried`] : []), ...(fellBack > 0 ? [`${fellBack} fell back`] : [])];
  const parts = [`${plural(requests.length, "model request")}${notes.length > 0 ? ` (${notes.join(", ")})` : ""}`];
  const firstOutput = requests.find((request) => request.firstOutputMs !== undefined)?.firstOutputMs;
  if (firstOutput !== undefined) parts.push(`${formatDuration(firstOutput)} to first output`);
  parts.push(`${formatDuration(sum(requests.map((request) => request.decodeMs)))} decoding`);
  if (toolCalls.length > 0) parts.push(`${formatDuration(sum(toolCalls.map((call) => call.runMs)))} in tools`);
  const backoff = sum(requests.map((request) => request.backoffMs));
  if (backoff > 0) parts.push(`${formatDuration(backoff)} retry waits`);
  return parts.join(" · ");
}

/** `340 ms` below a second, else `1.2 s`. */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
