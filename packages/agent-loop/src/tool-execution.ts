import type { AssistantMessage } from "@mariozechner/pi-ai";
import { ABANDONED } from "./abort-grace.js";
import { contentProblem, describeValue } from "./message-checks.js";
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

/** What {@link executeToolCall} uses of the batch it belongs to. */
export interface ToolCallScope {
  readonly run: LoopRun;
  readonly assistant: AssistantMessage;
  /** Set when `afterToolCall` returned `terminateAgent` (behaviours L6d, L7). */
  terminateAgent: boolean;
  /** Waits for `work` (a tool or hook); once the run is aborted, at most until the batch's abort grace runs out. */
  untilAbandoned<T>(work: T | PromiseLike<T>): Promise<T | typeof ABANDONED>;
  /** Emits a `tool_execution_update` of the call, in turn with the batch's other events. */
  emitUpdate(toolCall: AgentToolCall, partialResult: AgentToolResult<unknown>): void;
  /** Emits the call's `tool_execution_end` after its updates; rejects when a listener failed on either. */
  emitEndAfterUpdates(done: FinishedCall): Promise<void>;
}

/** A call answered with the `aborted` result: its tool never started. */
export function notExecuted(toolCall: AgentToolCall): FinishedCall {
  return { toolCall, result: errorToolResult(ToolResultText.aborted), isError: true };
}

/**
 * Runs one admitted call, from `onToolExecutionStart` to its
 * `tool_execution_end` (behaviours L5, L10), and resolves to the finished
 * call; rejects only when a listener fails on that end or on one of the
 * call's updates.
 *
 * A call is not started once the run is aborted: not after an abort during
 * `onToolExecutionStart` (a hook that ignores the signal included), nor
 * after one raised by a sibling tool started just before; it gets the
 * `aborted` result and no `afterToolCall`. A tool that started and had not
 * settled when the abort grace ran out gets `interrupted`, never the "not
 * executed" text; its late answer and updates are ignored.
 */
export async function executeToolCall(scope: ToolCallScope, call: AdmittedCall): Promise<FinishedCall> {
  const { run, assistant } = scope;
  const { toolCall, tool, args } = call;
  if (run.aborted) return endCall(scope, notExecuted(toolCall));
  const onStart = run.config.onToolExecutionStart;
  if (onStart) {
    try {
      await scope.untilAbandoned(
        onStart({ assistantMessage: assistant, toolCall, args, context: run.context }, run.signal),
      );
    } catch {
      // An observer; its failure does not stop the tool.
    }
  }
  // The calls of a parallel batch start one after another: a sibling started
  // just before may have aborted the run, which keeps this one from starting.
  await undefined;
  if (run.aborted) return endCall(scope, notExecuted(toolCall));

  run.markToolStarted(toolCall.id);
  /** True once the tool settled or was given up on: its updates are ignored from then on (a deliberate difference from pi). */
  let settled = false;
  const onUpdate = (partialResult: AgentToolResult<unknown>) => {
    if (!settled) scope.emitUpdate(toolCall, partialResult);
  };
  let result: AgentToolResult<unknown>;
  let isError: boolean;
  try {
    const answer = await scope.untilAbandoned(tool.execute(toolCall.id, args as never, run.signal, onUpdate));
    if (answer === ABANDONED) {
      result = errorToolResult(ToolResultText.interrupted);
      isError = true;
    } else {
      const problem = toolResultProblem(answer);
      // Turnkit addition: a malformed result becomes an error result naming the field, never transcript content.
      result = problem ? errorToolResult(`Tool ${toolCall.name} returned a malformed result: ${problem}`) : answer;
      // Turnkit addition: a tool may report a failure as a result instead of throwing.
      isError = problem !== undefined || answer.isError === true;
    }
  } catch (error) {
    result = errorToolResult(thrownText(error));
    isError = true;
  }
  settled = true;

  const after = run.config.afterToolCall;
  if (after) {
    try {
      const patch = await scope.untilAbandoned(
        after({ assistantMessage: assistant, toolCall, args, result, isError, context: run.context }, run.signal),
      );
      // A hook still pending when the abort grace ran out leaves the result as the tool gave it.
      if (patch && patch !== ABANDONED) {
        // Each field read once: a getter or a proxy's trap that throws is named; one that answers otherwise later is not asked again.
        const content = hookAnswerField(patch, "content", "afterToolCall");
        const details = hookAnswerField(patch, "details", "afterToolCall");
        const terminate = hookAnswerField(patch, "terminate", "afterToolCall");
        const patchIsError = hookAnswerField(patch, "isError", "afterToolCall");
        const terminateAgent = hookAnswerField(patch, "terminateAgent", "afterToolCall");
        const problem = content !== undefined && contentProblem(content, undefined, false);
        if (problem) {
          result = errorToolResult(`afterToolCall returned malformed content: ${problem}`);
          isError = true;
        } else {
          result = {
            content: (content as AgentToolResult<unknown>["content"] | undefined) ?? result.content,
            // `??` as in pi: a null `details` keeps the executed value too.
            details: details ?? result.details,
            terminate: (terminate as boolean | undefined) ?? result.terminate,
          };
          if (patchIsError !== undefined) isError = patchIsError as boolean;
          if (terminateAgent) scope.terminateAgent = true;
        }
      }
    } catch (error) {
      result = errorToolResult(thrownText(error));
      isError = true;
    }
  }
  return endCall(scope, { toolCall, result, isError });
}

async function endCall(scope: ToolCallScope, done: FinishedCall): Promise<FinishedCall> {
  await scope.emitEndAfterUpdates(done);
  return done;
}

/**
 * One field of a hook's answer (`beforeToolCall`'s result, `afterToolCall`'s
 * patch), read once. A read that throws (a getter, a proxy's trap, a
 * revoked proxy) throws an `Error` naming the hook and the field, which
 * becomes the call's error result.
 */
export function hookAnswerField(answer: object, field: string, hook: string): unknown {
  try {
    return (answer as Record<string, unknown>)[field];
  } catch (error) {
    throw new Error(`${hook} returned a result whose ${field} could not be read: ${thrownText(error)}`, {
      cause: error,
    });
  }
}

/** What is wrong with a tool's answer (`undefined`: nothing): it must be an object whose `content` is a list of text and image blocks. */
function toolResultProblem(answer: unknown): string | undefined {
  if (typeof answer !== "object" || answer === null || Array.isArray(answer)) {
    return `expected { content, details }, got ${describeValue(answer)}`;
  }
  // A tool result holds text and image blocks, as a user message does (the check's default).
  return contentProblem((answer as { content?: unknown }).content, undefined, false);
}
