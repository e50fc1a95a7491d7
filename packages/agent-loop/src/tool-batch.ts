import type { AssistantMessage, ToolResultMessage } from "@mariozechner/pi-ai";
import { ABANDONED } from "./abort-grace.js";
import type { LoopRun } from "./loop-run.js";
import { ToolResultText, errorToolResult, thrownText } from "./synthetic-messages.js";
import { validateToolArguments } from "./tool-arguments.js";
import { type FinishedCall, emitEnd, recordResult, skipCall } from "./tool-call-results.js";
import {
  type AdmittedCall,
  type ToolCallScope,
  executeToolCall,
  hookAnswerField,
  notExecuted,
} from "./tool-execution.js";
import type { AgentTool, AgentToolCall, AgentToolResult } from "./types.js";

/** What a tool batch produced. */
export interface ToolBatchOutcome {
  /** Tool-result messages in the model's call order, one per call. */
  results: ToolResultMessage[];
  /** True when no model request should follow for these results (behaviour L6d). */
  terminate: boolean;
  /** True when the run's signal fired during the batch (behaviour L10). */
  aborted: boolean;
}

type Preparation = { kind: "admitted"; call: AdmittedCall } | { kind: "finished"; finished: FinishedCall };

/**
 * Runs the tool calls of one assistant message (behaviours L4, L5, L7, L10) and
 * records their results. Every call gets `tool_execution_start`,
 * `tool_execution_end` and exactly one tool-result message, whatever
 * happens to it. Events are emitted one at a time, even while tools run
 * concurrently, so listeners never overlap.
 */
export function executeToolBatch(
  run: LoopRun,
  assistant: AssistantMessage,
  toolCalls: AgentToolCall[],
): Promise<ToolBatchOutcome> {
  // The tools as the batch starts: a hook that changes the context's tools affects the next batch.
  const tools = run.context.tools ? run.context.tools.slice() : [];
  const sequential =
    run.config.toolExecution === "sequential" ||
    toolCalls.some((call) => findTool(tools, call.name)?.executionMode === "sequential");
  const batch = new ToolBatch(run, assistant, tools);
  return sequential ? batch.runSequential(toolCalls) : batch.runParallel(toolCalls);
}

class ToolBatch implements ToolCallScope {
  /** Set once a hook returned `terminateAgent` (behaviours L6d, L7). */
  terminateAgent = false;
  /** Tool-result messages recorded so far, in the model's call order. */
  readonly results: ToolResultMessage[] = [];
  /**
   * Serialises emits from concurrently running tools, and orders a call's
   * `tool_execution_update`s before its `tool_execution_end`.
   */
  private emitChain: Promise<void> = Promise.resolve();
  /** The first failure of a listener on a `tool_execution_update`; it fails the run at that call's end (behaviour L9). */
  private updateFailure: { error: unknown } | undefined;
  /** Resolves with `ABANDONED` when the run's grace runs out during the batch; what waits on it goes with the batch. */
  private readonly ranOut: Promise<typeof ABANDONED>;
  private readonly abandon: () => void;
  constructor(
    readonly run: LoopRun,
    readonly assistant: AssistantMessage,
    private readonly tools: readonly AgentTool<any>[],
  ) {
    let abandon!: () => void;
    this.ranOut = new Promise((resolve) => {
      abandon = () => resolve(ABANDONED);
    });
    this.abandon = abandon;
    run.grace.whenRunOut(abandon);
  }

  async runSequential(toolCalls: AgentToolCall[]): Promise<ToolBatchOutcome> {
    try {
      const finished: FinishedCall[] = [];
      for (const toolCall of toolCalls) {
        if (this.run.aborted || this.terminateAgent) {
          const done = await skipCall(
            this.run,
            toolCall,
            this.run.aborted ? ToolResultText.aborted : ToolResultText.stoppedByHook,
          );
          await recordResult(this.run, done, this.results);
          finished.push(done);
          continue;
        }
        const preparation = await this.startAndPrepare(toolCall);
        const done =
          preparation.kind === "finished"
            ? await this.endAfterUpdates(preparation.finished)
            : await executeToolCall(this, preparation.call);
        // As in pi: in sequential mode each call's result message follows its end at once.
        await recordResult(this.run, done, this.results);
        finished.push(done);
      }
      return this.outcome(finished);
    } finally {
      this.run.grace.stopWaiting(this.abandon);
    }
  }

  async runParallel(toolCalls: AgentToolCall[]): Promise<ToolBatchOutcome> {
    try {
      const prepared: Preparation[] = [];
      for (const toolCall of toolCalls) {
        if (this.run.aborted) {
          prepared.push({ kind: "finished", finished: await skipCall(this.run, toolCall, ToolResultText.aborted) });
          continue;
        }
        const preparation = await this.startAndPrepare(toolCall);
        if (preparation.kind === "finished") await emitEnd(this.run, preparation.finished);
        prepared.push(preparation);
      }
      // Every admitted call starts at once; every end (also of a call not started
      // because the signal fired meanwhile, e.g. in an onToolExecutionStart) goes
      // through the serial chain while the others run.
      const finished = await Promise.all(
        prepared.map((preparation) =>
          preparation.kind === "finished" ? preparation.finished : executeToolCall(this, preparation.call),
        ),
      );
      for (const call of finished) await recordResult(this.run, call, this.results);
      return this.outcome(finished);
    } finally {
      this.run.grace.stopWaiting(this.abandon);
    }
  }

  /** What the batch produced; its results join the model context now, together. */
  private outcome(finished: readonly FinishedCall[]): ToolBatchOutcome {
    this.run.context.messages.push(...this.results);
    const terminate =
      this.terminateAgent || (finished.length > 0 && finished.every((call) => call.result.terminate === true));
    return { results: this.results, terminate, aborted: this.run.aborted };
  }

  /** Emits the call's `tool_execution_start`, then prepares it. */
  private async startAndPrepare(toolCall: AgentToolCall): Promise<Preparation> {
    await this.run.emit({
      type: "tool_execution_start",
      toolCallId: toolCall.id,
      toolName: toolCall.name,
      args: toolCall.arguments,
    });
    return this.prepare(toolCall);
  }

  /**
   * Finds the tool, prepares and validates arguments, asks `beforeToolCall`
   * (behaviours L4, L5). Admits nothing once the run is aborted: the signal is checked
   * after each step that may have fired it (the `tool_execution_start`
   * listeners, argument preparation, the hook), and a hook still pending
   * when the abort grace runs out is not waited for. A hook that ignores the
   * signal and answers "allow" after the abort (a permission prompt the user
   * answered while pressing Esc) therefore never starts the tool.
   */
  private async prepare(toolCall: AgentToolCall): Promise<Preparation> {
    if (this.run.aborted) return notAdmitted(toolCall);
    const tool = findTool(this.tools, toolCall.name);
    if (!tool) return finishedWithError(toolCall, ToolResultText.notFound(toolCall.name));
    let args: unknown;
    try {
      const rawArguments = tool.prepareArguments ? tool.prepareArguments(toolCall.arguments) : toolCall.arguments;
      // The validator reads the call and never changes it: a copy only when the arguments were prepared.
      const prepared =
        rawArguments === toolCall.arguments
          ? toolCall
          : { ...toolCall, arguments: rawArguments as Record<string, any> };
      args = validateToolArguments(tool, prepared);
    } catch (error) {
      return finishedWithError(toolCall, thrownText(error));
    }
    if (this.run.aborted) return notAdmitted(toolCall);
    if (!this.run.config.beforeToolCall) return { kind: "admitted", call: { toolCall, tool, args } };
    return this.askBeforeToolCall({ toolCall, tool, args });
  }

  private async askBeforeToolCall(call: AdmittedCall): Promise<Preparation> {
    const { toolCall, args } = call;
    try {
      const before = await this.untilAbandoned(
        this.run.config.beforeToolCall?.(
          { assistantMessage: this.assistant, toolCall, args, context: this.run.context },
          this.run.signal,
        ),
      );
      // Once aborted, every call that does not run is answered aborted, whatever the hook decided.
      if (before === ABANDONED || this.run.aborted) return notAdmitted(toolCall);
      if (!before) return { kind: "admitted", call };
      // Each field read once, as needed: a getter or a proxy's trap that throws is named in the call's error result.
      if (hookAnswerField(before, "terminateAgent", "beforeToolCall")) this.terminateAgent = true;
      if (!hookAnswerField(before, "block", "beforeToolCall")) return { kind: "admitted", call };
      const reason = hookAnswerField(before, "reason", "beforeToolCall") as string | undefined;
      const details = hookAnswerField(before, "details", "beforeToolCall");
      return finishedWithError(toolCall, reason || ToolResultText.blocked, details);
    } catch (error) {
      return finishedWithError(toolCall, thrownText(error));
    }
  }

  emitUpdate(toolCall: AgentToolCall, partialResult: AgentToolResult<unknown>): void {
    void this.serialEmit(() =>
      this.run.emit({
        type: "tool_execution_update",
        toolCallId: toolCall.id,
        toolName: toolCall.name,
        args: toolCall.arguments,
        partialResult,
      }),
    ).catch((error: unknown) => {
      // Not thrown into the tool: it fails the run at this call's end instead.
      this.updateFailure ??= { error };
    });
  }

  /**
   * Waits for `work` (a tool's or hook's answer); once the run's signal has
   * fired, at most until the run's abort grace runs out (never once the batch ended).
   */
  untilAbandoned<T>(work: T | PromiseLike<T>): Promise<T | typeof ABANDONED> {
    return Promise.race([work, this.ranOut]);
  }

  /**
   * Emits `tool_execution_end` after every update already queued, so no
   * update of a call follows its end. A listener that failed on an update
   * fails the run here, as a failure on any other event would.
   */
  emitEndAfterUpdates(done: FinishedCall): Promise<void> {
    return this.serialEmit(() => {
      if (this.updateFailure) throw this.updateFailure.error;
      return emitEnd(this.run, done);
    });
  }

  /** {@link emitEndAfterUpdates}, resolving to the call. */
  private async endAfterUpdates(done: FinishedCall): Promise<FinishedCall> {
    await this.emitEndAfterUpdates(done);
    return done;
  }

  private serialEmit(emit: () => Promise<void> | void): Promise<void> {
    const next = this.emitChain.then(emit);
    this.emitChain = next.catch(ignoreFailure);
    return next;
  }
}

/** The serial chain goes on after a failed emit; the emit's own promise reports the failure. */
function ignoreFailure(): void {}

/** The first tool named `name`, as a lookup table built first-name-wins would answer; the list is short. */
function findTool(tools: readonly AgentTool<any>[], name: string): AgentTool<any> | undefined {
  for (const tool of tools) if (tool.name === name) return tool;
  return undefined;
}

/** A call answered with the `aborted` result before its tool could start. */
function notAdmitted(toolCall: AgentToolCall): Preparation {
  return { kind: "finished", finished: notExecuted(toolCall) };
}

function finishedWithError(toolCall: AgentToolCall, text: string, details?: unknown): Preparation {
  const result: AgentToolResult<unknown> = errorToolResult(text);
  if (details !== undefined) result.details = details;
  return { kind: "finished", finished: { toolCall, result, isError: true } };
}
