import type { ToolCallTiming } from "@turnkit/protocol";
import type { Clock } from "../clock.js";
import { millis } from "./request-timing.js";

/** The moments of one tool call, on the turn's clock (every field present from the start, so all calls share one shape). */
export interface ToolCallTimes {
  readonly toolName: string;
  readonly announcedAt: number;
  admittedAt: number | undefined;
  endedAt: number | undefined;
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

  constructor(private readonly clock: Clock) {}

  announced(toolCallId: string, toolName: string): void {
    if (!this.calls.has(toolCallId)) this.calls.set(toolCallId, { toolName, announcedAt: this.clock.now(), admittedAt: undefined, endedAt: undefined });
  }

  admitted(toolCallId: string): void {
    const call = this.calls.get(toolCallId);
    if (call && call.admittedAt === undefined) call.admittedAt = this.clock.now();
  }

  /** The tool's `execute` settled (before the after-tool hooks and before the loop reports the call's end in call order). */
  settled(toolCallId: string): void {
    const call = this.calls.get(toolCallId);
    if (call && call.endedAt === undefined) call.endedAt = this.clock.now();
  }

  /** Ends the call (when it had not settled yet) and answers its times, `endedAt` set (undefined for a call never announced). */
  ended(toolCallId: string): ToolCallTimes | undefined {
    const call = this.calls.get(toolCallId);
    if (call && call.endedAt === undefined) call.endedAt = this.clock.now();
    return call;
  }

  /** Every call in announcement order; `now` ends a call still running. */
  timings(now: number): ToolCallTiming[] {
    const timings: ToolCallTiming[] = [];
    this.calls.forEach((call, toolCallId) => timings.push(toolCallTiming(toolCallId, call, call.endedAt ?? now)));
    return timings;
  }
}

/** A call's timing as the protocol reports it, the call having ended at `endedAt`. */
export function toolCallTiming(toolCallId: string, call: ToolCallTimes, endedAt: number): ToolCallTiming {
  const admittedAt = call.admittedAt ?? endedAt;
  return {
    toolCallId,
    toolName: call.toolName,
    queuedMs: millis(admittedAt - call.announcedAt),
    runMs: call.admittedAt === undefined ? 0 : millis(endedAt - call.admittedAt),
  };
}
