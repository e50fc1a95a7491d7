import type { AssistantMessage } from "@mariozechner/pi-ai";
import {
  type AfterToolCallContext,
  type AfterToolCallResult,
  type BeforeToolCallContext,
  type BeforeToolCallResult,
  type ToolExecutionStartContext,
} from "@turnkit/agent-loop";
import { ABANDONED, ToolResultText, errorText } from "@turnkit/agent-loop/internal";
import { contentProblem, describeValue } from "../messages/content-checks.js";
import { answerFromHost, copyForHost } from "../messages/host-copy.js";
import { awaitHostCall } from "./host-calls.js";
import { type OnToolExecutionStartHook, type ToolCallHookEvent, hookArray } from "./turn-hooks.js";
import type { RunningTurn } from "./turn-state.js";
import { reportTrace } from "./turn-log.js";

/**
 * The tool hook seam: the loop's `beforeToolCall`, `onToolExecutionStart`
 * and `afterToolCall`, each running the turn's hooks of that kind in order.
 * Every hook is a host call of the turn (bounded by its shared abort grace,
 * never called once the turn settled); a hook given up on stops its chain. Failures are safe in one way
 * per kind: a failing before-hook blocks the call, a failing start observer
 * is ignored, a failing after-hook turns the result into an error result.
 */

/**
 * What a tool hook sees about one call: copies of the call, its validated
 * arguments and its response, so a hook that edits them changes neither
 * the transcript nor what the tool runs with; only its decision counts.
 */
function toolEvent(
  turn: RunningTurn,
  context: { assistantMessage: AssistantMessage; toolCall: ToolCallHookEvent["toolCall"]; args: unknown },
): ToolCallHookEvent {
  return {
    sessionId: turn.input.sessionId,
    turnId: turn.input.turnId,
    toolCall: copyForHost(context.toolCall),
    args: copyForHost(context.args),
    assistantMessage: copyForHost(context.assistantMessage),
    assistantMessageId: turn.bridge.assistantMessageIdFor(context.toolCall.id),
  };
}

/**
 * Runs the `beforeToolCallHook`s; the first `block` wins. A throw, an
 * invalid decision (not an object, `block` not a boolean, a `reason` that
 * is not a string), one that cannot be read (its text names the field) or
 * a hook abandoned after an abort blocks the call. The decision is read
 * once, as a copy.
 */
export async function beforeToolCall(
  turn: RunningTurn,
  context: BeforeToolCallContext,
  signal: AbortSignal | undefined,
): Promise<BeforeToolCallResult | undefined> {
  const hooks = hookArray(turn.hooks.beforeToolCallHook);
  if (hooks.length === 0) return undefined;
  const event = toolEvent(turn, context);
  for (const hook of hooks) {
    try {
      const answer = await awaitHostCall(turn, "beforeToolCallHook", () =>
        hook(event, signal ?? new AbortController().signal),
      );
      if (answer === ABANDONED) return { block: true, reason: ToolResultText.aborted };
      const read = readAnswer(answer, BLOCK_DECISION_FIELDS);
      if (read.unreadable !== undefined) {
        const reason = `Tool call blocked: beforeToolCallHook returned a decision that could not be read: ${read.unreadable}`;
        reportTrace(turn, "tool", "error", reason, {
          toolCallId: context.toolCall.id,
          toolName: context.toolCall.name,
        });
        return { block: true, reason };
      }
      const decision = read.value;
      const problem = blockDecisionProblem(decision);
      if (problem) {
        const reason = `Tool call blocked: beforeToolCallHook returned an invalid decision: ${problem}`;
        reportTrace(turn, "tool", "error", reason, {
          toolCallId: context.toolCall.id,
          toolName: context.toolCall.name,
        });
        return { block: true, reason };
      }
      if (decision?.block) {
        reportTrace(turn, "tool", "info", "tool call blocked", {
          toolCallId: context.toolCall.id,
          toolName: context.toolCall.name,
          reason: decision.reason,
          blockedBy: decision.blockedBy,
        });
        // The blocked result's details say who blocked it, so history and the stream show a permission refusal as such.
        return {
          block: true,
          reason: decision.reason,
          details: decision.blockedBy ? { blockedBy: decision.blockedBy } : {},
        };
      }
    } catch (error) {
      const reason = `Tool call blocked: beforeToolCallHook failed: ${errorText(error)}`;
      reportTrace(turn, "tool", "error", reason, { toolCallId: context.toolCall.id, toolName: context.toolCall.name });
      return { block: true, reason };
    }
  }
  return undefined;
}

/**
 * Tells the bridge the call was admitted, then runs the `onToolExecutionStartHook`
 * observers; their failures are ignored. Without an observer it returns no
 * promise, so the loop starts the tool without waiting.
 */
export function onToolExecutionStart(
  turn: RunningTurn,
  context: ToolExecutionStartContext,
  signal: AbortSignal | undefined,
): Promise<void> | void {
  turn.bridge.toolAdmitted(context.toolCall.id);
  turn.watch.toolAdmitted(context.toolCall.id);
  const hooks = hookArray(turn.hooks.onToolExecutionStartHook);
  if (hooks.length === 0) return;
  return runStartObservers(turn, context, signal, hooks);
}

async function runStartObservers(
  turn: RunningTurn,
  context: ToolExecutionStartContext,
  signal: AbortSignal | undefined,
  hooks: readonly OnToolExecutionStartHook[],
): Promise<void> {
  const event = toolEvent(turn, context);
  for (const hook of hooks) {
    try {
      if (
        (await awaitHostCall(turn, "onToolExecutionStartHook", () =>
          hook(event, signal ?? new AbortController().signal),
        )) === ABANDONED
      )
        return;
    } catch {
      // An observer; its failure never affects the call.
    }
  }
}

/**
 * Runs the `afterToolCallHook`s, each patching the result the previous ones
 * left, and records for step end whether a hook asked to stop the agent.
 * A hook that throws or returns an invalid patch (not an object, `content`
 * that is not text and image blocks, a flag that is not a boolean) or one
 * that cannot be read (naming the field) turns the result into an error
 * result naming what was wrong. The patch is read once, as a copy.
 * Installed only for a turn that has such a hook.
 */
export async function afterToolCall(
  turn: RunningTurn,
  context: AfterToolCallContext,
  signal: AbortSignal | undefined,
): Promise<AfterToolCallResult> {
  const hooks = hookArray(turn.hooks.afterToolCallHook);
  let { result, isError } = context;
  let terminateAgent = false;
  for (const hook of hooks) {
    try {
      const answer = await awaitHostCall(turn, "afterToolCallHook", () =>
        hook(
          { ...toolEvent(turn, context), result: copyForHost(result), isError },
          signal ?? new AbortController().signal,
        ),
      );
      // Given up on after the abort: the chain stops; the tool ran, so its result (as patched so far) stands.
      if (answer === ABANDONED) break;
      const read = readAnswer(answer, PATCH_FIELDS);
      if (read.unreadable !== undefined) {
        result = {
          content: [
            { type: "text", text: `afterToolCallHook returned a patch that could not be read: ${read.unreadable}` },
          ],
          details: result.details,
        };
        isError = true;
        continue;
      }
      const patch = read.value;
      if (patch === null || patch === undefined) continue;
      const problem = patchProblem(patch);
      if (problem) throw new Error(`it returned an invalid patch: ${problem}`);
      result = {
        content: patch.content === undefined ? result.content : patch.content,
        details: "details" in patch ? patch.details : result.details,
        terminate: patch.terminate ?? result.terminate,
      };
      if (patch.isError !== undefined) isError = patch.isError;
      if (patch.terminateAgent) terminateAgent = true;
    } catch (error) {
      result = {
        content: [{ type: "text", text: `afterToolCallHook failed: ${errorText(error)}` }],
        details: result.details,
      };
      isError = true;
    }
  }
  if (terminateAgent) turn.terminateAgentRequested = true;
  // `false`, not `undefined`: the loop would fall back to the unpatched result's flag.
  return {
    content: result.content,
    details: result.details,
    isError,
    terminate: result.terminate === true,
    terminateAgent,
  };
}

/** The fields of a `beforeToolCallHook` decision, and of an `afterToolCallHook` patch. */
const BLOCK_DECISION_FIELDS = ["block", "reason", "blockedBy"] as const;
const PATCH_FIELDS = ["content", "details", "isError", "terminate", "terminateAgent"] as const;

/**
 * A hook's answer read once, as a copy (see `answerFromHost`), or the words
 * saying which field could not be read: what the hook then does with the
 * call is its own rule.
 */
function readAnswer<T>(
  answer: T,
  fields: readonly string[],
): { value: T; unreadable?: undefined } | { unreadable: string } {
  try {
    return { value: answerFromHost(answer, fields) };
  } catch (error) {
    return { unreadable: errorText(error) };
  }
}

/** What is wrong with a `beforeToolCallHook` decision (`undefined`: nothing); `null` and `undefined` are "go on". */
function blockDecisionProblem(decision: unknown): string | undefined {
  if (decision === null || decision === undefined) return undefined;
  if (typeof decision !== "object" || Array.isArray(decision))
    return `expected { block, reason? }, got ${describeValue(decision)}`;
  const { block, reason } = decision as { block?: unknown; reason?: unknown };
  if (block !== undefined && typeof block !== "boolean") return `block must be a boolean, got ${describeValue(block)}`;
  if (block === true && reason !== undefined && typeof reason !== "string")
    return `reason must be a string, got ${describeValue(reason)}`;
  return undefined;
}

/** What is wrong with an `afterToolCallHook` patch (`undefined`: nothing): an object whose `content`, when set, is text and image blocks and whose flags are booleans. */
function patchProblem(patch: unknown): string | undefined {
  if (typeof patch !== "object" || patch === null || Array.isArray(patch))
    return `expected an object, got ${describeValue(patch)}`;
  const { content, isError, terminate, terminateAgent } = patch as Record<string, unknown>;
  if (content !== undefined) {
    const problem = contentProblem(content, undefined, false);
    if (problem) return problem;
  }
  const flags = { isError, terminate, terminateAgent };
  for (const [name, value] of Object.entries(flags)) {
    if (value !== undefined && typeof value !== "boolean")
      return `${name} must be a boolean, got ${describeValue(value)}`;
  }
  return undefined;
}
