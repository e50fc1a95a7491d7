import type { AssistantMessage } from "@mariozechner/pi-ai";
import { ABANDONED, errorText } from "@turnkit/agent-loop/internal";
import { ErrorCode } from "@turnkit/protocol";
import { TURN_DEFAULTS } from "../defaults.js";
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
 * calls, so none of them runs. A hook given up on after the abort stops
 * the chain: later hooks are not asked and no decision is applied.
 */
export async function runAfterLlmHooks(turn: RunningTurn, message: AssistantMessage): Promise<void> {
  const hooks = hookArray(turn.hooks.afterLlmCallHook);
  const requestIndex = turn.requestIndex;
  const signal = turn.agent.signal ?? new AbortController().signal;
  for (const hook of hooks) {
    let decision: AfterLlmCallDecision | null | undefined | typeof ABANDONED;
    try {
      decision = await awaitHostCall(turn, "afterLlmCallHook", () =>
        hook({
          sessionId: turn.input.sessionId,
          turnId: turn.input.turnId,
          requestIndex,
          message,
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
    if (decision === ABANDONED) return;
    if (!decision) continue;
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
        failTurn(turn, { code: ErrorCode.Hook, message: `afterLlmCallHook failed the turn: ${decision.reason}` });
        return;
      default:
        stripToolCalls(message);
        failTurn(turn, {
          code: ErrorCode.Hook,
          message: `afterLlmCallHook returned an invalid decision: ${JSON.stringify(decision)}`,
        });
        return;
    }
  }
}
