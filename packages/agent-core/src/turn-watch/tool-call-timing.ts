import type { ToolCallTiming } from "@turnkit/protocol";
import { millis } from "./request-timing.js";

interface ToolCallTimes {
  toolName: string;
  announcedAt: number;
  admittedAt?: number;
  endedAt?: number;
}

/**
 * When each tool call of a turn was announced (the loop's
 * `tool_execution_start`: arguments are checked, `beforeToolCallHook`s and
 * permissions asked), admitted (about to run) and ended, on the turn's
 * clock. A call that never ran has no admission: all its time is queued.
 * Run time ends when `execute` settles, not when the loop reports the end
 * (parallel calls are reported in the model's call order).
 */
export class ToolCallTimer {
  private readonly calls = new Map<string, ToolCallTimes>();

  constructor(private readonly now: () => number) {}

  announced(toolCallId: string, toolName: string): void {
    if (!this.calls.has(toolCallId)) this.calls.set(toolCallId, { toolName, announcedAt: this.now() });
  }

  admitted(toolCallId: string): void {
    const call = this.calls.get(toolCallId);
    if (call && call.admittedAt === undefined) call.admittedAt = this.now();
  }

  /** The tool's `execute` settled (before the after-tool hooks and before the loop reports the call's end in call order). */
  settled(toolCallId: string): void {
    const call = this.calls.get(toolCallId);
    if (call && call.endedAt === undefined) call.endedAt = this.now();
  }

  /** Ends the call (when it had not settled yet); returns its timing (undefined for a call never announced). */
  ended(toolCallId: string): { timing: ToolCallTiming; endedAt: number } | undefined {
    const call = this.calls.get(toolCallId);
    if (!call) return undefined;
    if (call.endedAt === undefined) call.endedAt = this.now();
    return { timing: this.timingOf(toolCallId, call, call.endedAt), endedAt: call.endedAt };
  }

  /** Every call in announcement order; `now` ends a call still running. */
  timings(now: number): ToolCallTiming[] {
    return [...this.calls].map(([toolCallId, call]) => this.timingOf(toolCallId, call, call.endedAt ?? now));
  }

  private timingOf(toolCallId: string, call: ToolCallTimes, endedAt: number): ToolCallTiming {
    const admittedAt = call.admittedAt ?? endedAt;
    return {
      toolCallId,
      toolName: call.toolName,
      queuedMs: millis(admittedAt - call.announcedAt),
      runMs: call.admittedAt === undefined ? 0 : millis(endedAt - call.admittedAt),
    };
  }
}
