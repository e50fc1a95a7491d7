import type { AgentRunResult } from "./contenders.js";

/** What a correct run of a workload leaves behind. */
export interface ExpectedRun {
  messageCount: number;
  finalTextLength: number;
}

/**
 * Throws when a run did not do the workload's work (a misconfigured
 * contender that fails early would otherwise post the best time).
 * Called on an untimed run of each contender before timing starts.
 */
export function assertCompleteRun(
  workload: string,
  contender: string,
  result: AgentRunResult,
  expected: ExpectedRun,
): void {
  const problems: string[] = [];
  if (result.outcome !== "completed") problems.push(`outcome ${result.outcome}`);
  if (result.messageCount !== expected.messageCount)
    problems.push(`${result.messageCount} messages, expected ${expected.messageCount}`);
  if (result.finalText.length !== expected.finalTextLength) {
    problems.push(`final text of ${result.finalText.length} characters, expected ${expected.finalTextLength}`);
  }
  if (problems.length > 0) throw new Error(`${workload} ${contender}: incomplete run: ${problems.join("; ")}`);
}
