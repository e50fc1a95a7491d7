/**
 * Invariant 6: after the run, no pending timers (virtual clock and the real
 * timers the run started), no listeners left on the caller's signal (for an
 * `Agent`, on each run's own signal), no unhandled rejections.
 */
import { InvariantViolation, describeValue } from "./violation.js";

const INVARIANT = "6 nothing leaks";

/** What a run left behind, as measured by the leak probes. */
export interface LeakReport {
  pendingVirtualTimers: number;
  pendingRealTimers: number;
  listenersLeft: number;
  unhandledRejections: readonly unknown[];
}

export function checkNoLeaks(report: LeakReport): void {
  const problems: string[] = [];
  if (report.pendingVirtualTimers > 0)
    problems.push(`${report.pendingVirtualTimers} timers pending on the injected virtual clock`);
  if (report.pendingRealTimers > 0)
    problems.push(`${report.pendingRealTimers} real timers started by the run still pending`);
  if (report.listenersLeft > 0) problems.push(`${report.listenersLeft} abort listeners left on the signal`);
  if (report.unhandledRejections.length > 0) {
    const reasons = report.unhandledRejections.map((reason) =>
      reason instanceof Error ? (reason.stack ?? reason.message) : describeValue(reason),
    );
    problems.push(`${report.unhandledRejections.length} unhandled rejections: ${reasons.join(" | ")}`);
  }
  if (problems.length > 0) throw new InvariantViolation(INVARIANT, problems.join("; "));
}
