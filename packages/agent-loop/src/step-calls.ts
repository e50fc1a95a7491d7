const STARTED = 1;
const OPEN = 2;
const ANSWERED = 4;
const EXECUTED = 8;

/**
 * What a run knows about the tool calls of its current step, for closing it
 * after a failure: which calls had `tool_execution_start`, which are still
 * open (no `tool_execution_end` yet), which have their result message and
 * whose tool was started, as flags per call id. A new step forgets
 * everything but the open executions.
 */
export class StepCalls {
  private readonly flags = new Map<string, number>();

  /** `tool_execution_start` of the call was emitted. */
  started(toolCallId: string): void {
    this.flags.set(toolCallId, (this.flags.get(toolCallId) ?? 0) | STARTED | OPEN);
  }

  /** `tool_execution_end` of the call was emitted. */
  ended(toolCallId: string): void {
    const flags = this.flags.get(toolCallId);
    if (flags !== undefined) this.flags.set(toolCallId, flags & ~OPEN);
  }

  /** The call's result message was announced. */
  answered(toolCallId: string): void {
    this.flags.set(toolCallId, (this.flags.get(toolCallId) ?? 0) | ANSWERED);
  }

  /** The call's tool was started (it may have had effects). */
  executed(toolCallId: string): void {
    this.flags.set(toolCallId, (this.flags.get(toolCallId) ?? 0) | EXECUTED);
  }

  isStarted(toolCallId: string): boolean {
    return this.has(toolCallId, STARTED);
  }

  isOpen(toolCallId: string): boolean {
    return this.has(toolCallId, OPEN);
  }

  isAnswered(toolCallId: string): boolean {
    return this.has(toolCallId, ANSWERED);
  }

  wasExecuted(toolCallId: string): boolean {
    return this.has(toolCallId, EXECUTED);
  }

  /** A new assistant message starts a step: only executions still open are kept. */
  nextStep(): void {
    for (const [toolCallId, flags] of this.flags) {
      if (flags & OPEN) this.flags.set(toolCallId, OPEN);
      else this.flags.delete(toolCallId);
    }
  }

  private has(toolCallId: string, flag: number): boolean {
    return ((this.flags.get(toolCallId) ?? 0) & flag) !== 0;
  }
}
