import { type AgentMessage } from "@turnkit/agent-loop";
import { ABANDONED, errorText, valueText } from "@turnkit/agent-loop/internal";
import { contentProblem, describeValue, messagesProblem } from "../messages/content-checks.js";
import { answerFromHost, requestMessagesForHost } from "../messages/host-copy.js";
import { createHiddenMessage } from "../messages/turn-messages.js";
import { deliverHistory } from "./history-delivery.js";
import { HookAbandonedError, awaitHostCall } from "./host-calls.js";
import { hookFailure } from "./turn-failure.js";
import { reportTrace } from "./turn-log.js";
import { type BeforeLlmCallDecision, type BeforeLlmCallHook, type LlmCallReason, hookArray } from "./turn-hooks.js";
import type { RunningTurn } from "./turn-state.js";
import { stopIfOverBudget } from "./turn-watching.js";

/**
 * The before-LLM hook seam, installed as the loop's `transformContext`:
 * runs the `beforeLlmCallHook`s in order, each seeing what the previous
 * ones produced, and returns the messages this request sends. A `skip` or
 * `respond` is left in `nextDirective` for the turn's stream function.
 *
 * A budget limit reached before the hooks, or by their own requests
 * (`auxiliaryStreamFn`), fails the turn with `budget_exceeded` and the
 * request is skipped.
 *
 * Fails closed: a throw, an invalid decision (one whose messages or content
 * are not well formed included) or a replacement that cannot be persisted
 * records a `hook` failure and throws, so the loop records an
 * error response and the model is never called. A hook still pending past
 * the abort grace throws `HookAbandonedError` (an aborted response).
 */
export async function runBeforeLlmHooks(
  turn: RunningTurn,
  messages: AgentMessage[],
  signal: AbortSignal | undefined,
  reason: LlmCallReason,
): Promise<AgentMessage[]> {
  // A budget limit reached since the last step: this request is never sent (skipped, its response dropped).
  if (reason === "request" && stopIfOverBudget(turn)) {
    turn.nextDirective = { kind: "skip" };
    return messages;
  }
  if (reason === "request") turn.requestIndex++;
  const hooks = hookArray(turn.hooks.beforeLlmCallHook);
  if (hooks.length === 0) return messages;
  // Only an overflow recovery reads it, and only with hooks to run; without, the loop's array is not kept past its request.
  turn.loopMessages = messages;
  const sent = await runHooks(turn, hooks, messages, signal, reason);
  // A hook's own requests (a compaction summary) count too: a limit they reached stops this request as well.
  if (!turn.nextDirective && stopIfOverBudget(turn)) turn.nextDirective = { kind: "skip" };
  return sent;
}

/** Runs the turn's `beforeLlmCallHook`s on the request's messages (see {@link runBeforeLlmHooks}). */
async function runHooks(
  turn: RunningTurn,
  hooks: readonly BeforeLlmCallHook[],
  messages: AgentMessage[],
  signal: AbortSignal | undefined,
  reason: LlmCallReason,
): Promise<AgentMessage[]> {
  let current: AgentMessage[] = messages;
  for (const hook of hooks) {
    let answer: BeforeLlmCallDecision | null | undefined | typeof ABANDONED;
    try {
      answer = await awaitHostCall(turn, "beforeLlmCallHook", () =>
        hook({
          sessionId: turn.input.sessionId,
          turnId: turn.input.turnId,
          requestIndex: turn.requestIndex,
          reason,
          // Copies: a hook changes the request only by its decision, never by editing what it was shown.
          messages: requestMessagesForHost(current, (turn.hookMessageCopies ??= new WeakMap())),
          model: turn.input.llm.model,
          auxiliaryStreamFn: turn.auxiliaryStreamFn,
          signal: signal ?? new AbortController().signal,
        }),
      );
    } catch (error) {
      throw hookFailure(turn, `beforeLlmCallHook failed: ${errorText(error)}`);
    }
    if (answer === ABANDONED) throw new HookAbandonedError("beforeLlmCallHook");
    const decision = readDecision(turn, "beforeLlmCallHook", answer);
    if (decision === null || decision === undefined) continue;
    switch (decision.type) {
      case "continue":
        continue;
      case "skip":
        turn.nextDirective = { kind: "skip" };
        turn.stopRequested = true;
        return current;
      case "respond":
        if (typeof decision.text !== "string")
          throw hookFailure(turn, "beforeLlmCallHook returned respond without text");
        turn.nextDirective = { kind: "respond", text: decision.text };
        return current;
      case "replaceRequestMessages":
        assertMessages(turn, decision);
        current = decision.messages;
        continue;
      case "replaceMessages":
        assertMessages(turn, decision);
        reportTrace(
          turn,
          "history",
          "info",
          typeof decision.description === "string" ? decision.description : "a before-LLM hook replaced the history",
          {
            requestIndex: turn.requestIndex,
            reason,
            previousMessages: messages.length,
            messages: decision.messages.length,
          },
        );
        await replaceHistory(turn, messages, decision.messages, decision.metadata);
        current = messages;
        continue;
      case "appendMessage": {
        if (decision.message?.content === undefined)
          throw hookFailure(turn, "beforeLlmCallHook returned appendMessage without content");
        const problem = contentProblem(decision.message.content);
        if (problem) throw hookFailure(turn, `beforeLlmCallHook returned appendMessage with message.${problem}`);
        const { source } = decision.message;
        if (source !== undefined && typeof source !== "string")
          throw hookFailure(
            turn,
            `beforeLlmCallHook returned appendMessage with message.source that is no string (${describeValue(source)})`,
          );
        const hidden = createHiddenMessage(decision.message.content, decision.message.source);
        messages.push(hidden);
        turn.agent.state.messages.push(hidden);
        if (current !== messages) current = [...current, hidden];
        continue;
      }
      case "abort":
        throw hookFailure(turn, `beforeLlmCallHook aborted the model call: ${decision.reason ?? "no reason given"}`);
      default:
        throw hookFailure(turn, `beforeLlmCallHook returned an invalid decision: ${valueText(decision)}`);
    }
  }
  return current;
}

/** The fields a before-LLM decision may have, whatever its type. */
const DECISION_FIELDS = ["type", "text", "messages", "metadata", "description", "message", "reason"] as const;

/**
 * A hook's decision, read once, here, as a copy: the hook's later edits
 * change nothing, and a field whose read throws (a getter, a proxy's trap)
 * is the hook's failure, naming the field.
 */
function readDecision<T>(turn: RunningTurn, hookName: string, answer: T): T {
  try {
    return answerFromHost(answer, DECISION_FIELDS);
  } catch (error) {
    throw hookFailure(turn, `${hookName} returned a decision that could not be read: ${errorText(error)}`);
  }
}

/** A replacement's messages must be a list of well-formed messages; else the hook fails, naming the first bad one. */
function assertMessages(turn: RunningTurn, decision: { type: string; messages: unknown }): void {
  if (decision.messages === undefined)
    throw hookFailure(turn, `beforeLlmCallHook returned ${decision.type} without messages`);
  const problem = messagesProblem(decision.messages);
  if (problem) throw hookFailure(turn, `beforeLlmCallHook returned ${decision.type} with messages${problem}`);
}

/** A persistent replacement (compaction): the loop's context, the transcript and the host all switch to it. */
async function replaceHistory(
  turn: RunningTurn,
  loopMessages: AgentMessage[],
  replacement: AgentMessage[],
  metadata?: Record<string, unknown>,
): Promise<void> {
  const previous = turn.agent.state.messages.slice();
  loopMessages.splice(0, loopMessages.length, ...replacement);
  turn.agent.state.messages = replacement;
  turn.cursor.replace(previous, replacement, metadata);
  try {
    await deliverHistory(turn);
  } catch (error) {
    throw hookFailure(turn, `The replaced history could not be persisted: ${errorText(error)}`);
  }
}
