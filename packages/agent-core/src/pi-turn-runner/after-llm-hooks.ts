import type { AssistantMessage } from "@mariozechner/pi-ai";
import { ABANDONED, errorText, valueText } from "@turnkit/agent-loop/internal";
import { ErrorCode } from "@turnkit/protocol";
import { TURN_DEFAULTS } from "../defaults.js";
import { describeValue } from "../messages/content-checks.js";
import { answerFromHost, copyForHost } from "../messages/host-copy.js";
import { createHiddenMessage, markDroppedResponse } from "../messages/turn-messages.js";
import { replaceText, stripToolCalls } from "./assistant-message.js";
import { awaitHostCall } from "./host-calls.js";
import { failTurn } from "./turn-failure.js";
import { type AfterLlmCallDecision, hookArray } from "./turn-hooks.js";
import type { RunningTurn } from "./turn-state.js";
import { reportTrace } from "./turn-log.js";

/**
 * The after-LLM hook seam, at each completed response's `message_end`,
 * before its tool calls run: each `afterLlmCallHook` may rewrite the text,
 * drop the response and ask again (a bounded number of times per turn), or
 * fail the turn. A hook that throws or returns an invalid decision fails
 * the turn (code `hook`); a response that fails the turn loses its tool
 * calls, so none of them runs. A decision is invalid when its type is
 * unknown or a text it needs (`replaceText`'s `text`, `retry`'s `reason`
 * and `prompt`) is not a string. A hook given up on after the abort stops
 * the chain: later hooks are not asked and no decision is applied.
 */
export async function runAfterLlmHooks(turn: RunningTurn, message: AssistantMessage): Promise<void> {
  const hooks = hookArray(turn.hooks.afterLlmCallHook);
  const requestIndex = turn.requestIndex;
  const signal = turn.agent.signal ?? new AbortController().signal;
  for (const hook of hooks) {
    let answer: AfterLlmCallDecision | null | undefined | typeof ABANDONED;
    try {
      answer = await awaitHostCall(turn, "afterLlmCallHook", () =>
        hook({
          sessionId: turn.input.sessionId,
          turnId: turn.input.turnId,
          requestIndex,
          // A copy: the response changes only by a decision, never by a hook editing what it was shown.
          message: copyForHost(message),
          retriesUsed: turn.afterLlmRetries,
          signal,
        }),
      );
    } catch (error) {
      stripToolCalls(message);
      failTurn(turn, { code: ErrorCode.Hook, message: `afterLlmCallHook failed: ${errorText(error)}` });
      return;
    }
    // Given up on after the abort (or the turn settled): the chain stops, nothing of it is applied.
    if (answer === ABANDONED) return;
    let decision: AfterLlmCallDecision | null | undefined;
    try {
      // Read once, here, as a copy: a field whose read throws is the hook's failure, naming the field.
      decision = answerFromHost(answer, DECISION_FIELDS);
    } catch (error) {
      stripToolCalls(message);
      const text = `afterLlmCallHook returned a decision that could not be read: ${errorText(error)}`;
      failTurn(turn, { code: ErrorCode.Hook, message: text });
      return;
    }
    if (!decision) continue;
    const problem = decisionProblem(decision);
    if (problem) {
      stripToolCalls(message);
      failTurn(turn, { code: ErrorCode.Hook, message: `afterLlmCallHook returned an invalid decision: ${problem}` });
      return;
    }
    switch (decision.type) {
      case "continue":
        continue;
      case "replaceText":
        replaceText(message, decision.text);
        continue;
      case "retry":
        if (turn.afterLlmRetries >= TURN_DEFAULTS.afterLlmHookMaxRetries) {
          reportTrace(turn, "llm", "warn", "afterLlmCallHook retry ignored: the per-turn budget is spent", {
            budget: TURN_DEFAULTS.afterLlmHookMaxRetries,
            reason: decision.reason,
          });
          continue;
        }
        turn.afterLlmRetries++;
        stripToolCalls(message);
        markDroppedResponse(message, decision.reason);
        turn.agent.followUp(createHiddenMessage(decision.prompt, "afterLlmCallHook"));
        reportTrace(turn, "llm", "info", "afterLlmCallHook asked for a retry", {
          reason: decision.reason,
          attempt: turn.afterLlmRetries,
        });
        return;
      case "fail":
        stripToolCalls(message);
        failTurn(turn, {
          code: ErrorCode.Hook,
          message: `afterLlmCallHook failed the turn: ${typeof decision.reason === "string" ? decision.reason : "no reason given"}`,
        });
        return;
    }
  }
}

/** The fields an after-LLM decision may have, whatever its type. */
const DECISION_FIELDS = ["type", "text", "reason", "prompt"] as const;

/** What is wrong with a decision (`undefined`: nothing): an unknown type, or a text its type needs that is not a string. */
function decisionProblem(decision: AfterLlmCallDecision): string | undefined {
  switch ((decision as { type?: unknown }).type) {
    case "continue":
    case "fail":
      return undefined;
    case "replaceText":
      return stringFieldProblem(decision, ["text"]);
    case "retry":
      return stringFieldProblem(decision, ["reason", "prompt"]);
    default:
      return valueText(decision);
  }
}

function stringFieldProblem(decision: AfterLlmCallDecision, fields: readonly string[]): string | undefined {
  const record = decision as unknown as Record<string, unknown>;
  const bad = fields.find((field) => typeof record[field] !== "string");
  return bad === undefined
    ? undefined
    : `${decision.type} needs ${bad} to be a string, got ${describeValue(record[bad])}`;
}
