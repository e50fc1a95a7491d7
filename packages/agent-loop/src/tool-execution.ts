import type { AssistantMessage } from "@mariozechner/pi-ai";
import { ABANDONED } from "./abort-grace.js";
import type { LoopRun } from "./loop-run.js";
import { ToolResultText, errorToolResult, thrownText } from "./synthetic-messages.js";
import type { FinishedCall } from "./tool-call-results.js";
import type { AgentTool, AgentToolCall, AgentToolResult } from "./types.js";

/** A call its batch admitted: the tool found, the arguments validated, `beforeToolCall` passed. */
export interface AdmittedCall {
  toolCall: AgentToolCall;
  tool: AgentTool<any>;
  args: unknown;
}

/** What a {@link ToolExecution} uses of the batch it belongs to. */
export interface ToolCallScope {
  readonly run: LoopRun;
  readonly assistant: AssistantMessage;
  /** Set when `afterToolCall` returned `terminateAgent` (behaviours L6d, L7). */
  terminateAgent: boolean;
  /** Waits for a hook's answer; once the run is aborted, at most until the batch's abort grace runs out. */
  untilAbandoned<T>(work: T | Promise<T>): T | Promise<T | typeof ABANDONED>;
  /** Emits a `tool_execution_update` of the call, in turn with the batch's other events. */
  emitUpdate(toolCall: AgentToolCall, partialResult: AgentToolResult<unknown>): void;
  /** Emits the call's `tool_execution_end` after its updates; rejects when a listener failed on either. */
  emitEndAfterUpdates(done: FinishedCall): Promise<void>;
  /** Calls {@link ToolExecution.abandon} when the batch's abort grace runs out, unless the batch ended first. */
  watchForAbandon(execution: ToolExecution): void;
}

/** A call answered with the `aborted` result: its tool never started. */
export function notExecuted(toolCall: AgentToolCall): FinishedCall {
  return { toolCall, result: errorToolResult(ToolResultText.aborted), isError: true };
}

/** Settled once: what a call waits on for the tick before its tool starts. */
const NEXT_TICK: Promise<void> = Promise.resolve();

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === "function";
}

/**
 * One admitted call, from `onToolExecutionStart` to its `tool_execution_end`
 * (behaviours L5, L10); {@link promise} resolves to the finished call and
 * rejects only when a listener fails on that end or on one of the call's
 * updates. While its tool runs, the call is this object and one reaction on
 * the tool's promise, not a suspended async function, and the batch's abort
 * grace reaches it through {@link abandon}, not a race per call.
 *
 * A call is not started once the run is aborted: not after an abort during
 * `onToolExecutionStart` (a hook that ignores the signal included), nor
 * after one raised by a sibling tool in the same tick; it gets the
 * `aborted` result and no `afterToolCall`. A tool that started and had not
 * settled when the abort grace ran out gets `interrupted`, never the "not
 * executed" text.
 */
export class ToolExecution {
  readonly promise: Promise<FinishedCall>;
  /** The next call whose tool was started before this one's, for the batch's abandon list. */
  startedBefore: ToolExecution | undefined;
  private resolve!: (finished: FinishedCall) => void;
  private reject!: (error: unknown) => void;
  /** The tool was started, so it may have had effects. */
  private started = false;
  /** The tool settled or was given up on: its updates and a late answer are ignored from then on. */
  private settled = false;

  constructor(
    private readonly scope: ToolCallScope,
    private readonly call: AdmittedCall,
  ) {
    this.promise = new Promise<FinishedCall>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** Starts the call: its observer now, its tool in the next tick. Never throws. */
  start(): void {
    const { run } = this.scope;
    if (run.aborted) return this.endNotExecuted();
    const onStart = run.config.onToolExecutionStart;
    let observed: unknown;
    if (onStart) {
      try {
        const { toolCall, args } = this.call;
        observed = this.scope.untilAbandoned(
          onStart({ assistantMessage: this.scope.assistant, toolCall, args, context: run.context }, run.signal),
        );
      } catch {
        // An observer; its failure does not stop the tool.
      }
    }
    // An observer that answered synchronously is not waited for; its failure is ignored either way.
    if (!isThenable(observed)) return this.observed();
    const next = () => this.observed();
    Promise.resolve(observed).then(next, next);
  }

  /** The tool's update callback: updates after the tool settled are ignored (a deliberate difference from pi). */
  private readonly onUpdate = (partialResult: AgentToolResult<unknown>): void => {
    if (!this.settled) this.scope.emitUpdate(this.call.toolCall, partialResult);
  };

  private observed(): void {
    if (this.scope.run.aborted) return this.endNotExecuted();
    // The tool starts in the next tick, the abort checked in that tick: a
    // sibling that aborted the run a moment ago keeps this one from starting.
    // A promise job, not queueMicrotask, which makes an async resource per call.
    void NEXT_TICK.then(() => this.startTool());
  }

  private startTool(): void {
    const { run } = this.scope;
    const { toolCall, tool, args } = this.call;
    if (run.aborted) return this.endNotExecuted();
    this.started = true;
    run.markToolStarted(toolCall.id);
    let answer: unknown;
    try {
      answer = tool.execute(toolCall.id, args as never, run.signal, this.onUpdate);
    } catch (error) {
      return this.toolFailed(error);
    }
    if (!isThenable(answer)) return this.toolAnswered(answer);
    this.scope.watchForAbandon(this);
    Promise.resolve(answer).then(
      (value) => this.toolAnswered(value),
      (error: unknown) => this.toolFailed(error),
    );
  }

  /** The batch's abort grace ran out while the tool ran: the call ends without waiting for it. */
  abandon(): void {
    if (!this.settled)
      void this.finish(errorToolResult(this.started ? ToolResultText.interrupted : ToolResultText.aborted), true);
  }

  private toolAnswered(value: unknown): void {
    if (this.settled) return;
    let isError: boolean;
    try {
      // Turnkit addition: a tool may report a failure as a result instead of throwing.
      isError = (value as AgentToolResult<unknown>).isError === true;
    } catch (error) {
      return this.toolFailed(error);
    }
    void this.finish(value as AgentToolResult<unknown>, isError);
  }

  private toolFailed(error: unknown): void {
    if (!this.settled) void this.finish(errorToolResult(thrownText(error)), true);
  }

  /** Applies `afterToolCall` (behaviour L5) to what the tool gave, then ends the call. */
  private async finish(given: AgentToolResult<unknown>, givenIsError: boolean): Promise<void> {
    this.settled = true;
    const { run } = this.scope;
    const { toolCall, args } = this.call;
    let result = given;
    let isError = givenIsError;
    const after = run.config.afterToolCall;
    if (after) {
      try {
        const patch = await this.scope.untilAbandoned(
          after(
            { assistantMessage: this.scope.assistant, toolCall, args, result, isError, context: run.context },
            run.signal,
          ),
        );
        // A hook still pending when the abort grace ran out leaves the result as the tool gave it.
        if (patch && patch !== ABANDONED) {
          result = {
            content: patch.content ?? result.content,
            // `??` as in pi: a null `details` keeps the executed value too.
            details: patch.details ?? result.details,
            terminate: patch.terminate ?? result.terminate,
          };
          if (patch.isError !== undefined) isError = patch.isError;
          if (patch.terminateAgent) this.scope.terminateAgent = true;
        }
      } catch (error) {
        result = errorToolResult(thrownText(error));
        isError = true;
      }
    }
    this.end({ toolCall, result, isError });
  }

  private endNotExecuted(): void {
    this.settled = true;
    this.end(notExecuted(this.call.toolCall));
  }

  private end(done: FinishedCall): void {
    this.scope.emitEndAfterUpdates(done).then(() => this.resolve(done), this.reject);
  }
}
