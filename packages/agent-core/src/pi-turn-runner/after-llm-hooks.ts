import type { AssistantMessage } from "@mariozechner/pi-ai";
import { errorText } from "@turnkit/agent-loop";
import { ErrorCode } from "@turnkit/protocol";
import { AFTER_LLM_HOOK_MAX_RETRIES } from "../defaults.js";
import { createHiddenMessage, markDroppedResponse } from "../messages/turn-messages.js";
import { replaceText, stripToolCalls } from "./assistant-message.js";
import { failTurn } from "./turn-failure.js";
import { type AfterLlmCallDecision, hookArray } from "./turn-hooks.js";
import type { RunningTurn } from "./turn-state.js";

/**
 * The after-LLM hook seam, at each completed response's `message_end`,
 * before its tool calls run: each `afterLlmCallHook` may rewrite the text,
 * drop the response and ask again (a bounded number of times per turn), or
 * fail the turn. A hook that throws or returns an invalid decision fails
 * the turn (code `hook`); a response that fails the turn loses its tool
 * calls, so none of them runs.
 */
export async function runAfterLlmHooks(turn: RunningTurn, message: AssistantMessage): Promise<void> {
  const hooks = hookArray(turn.hooks.afterLlmCallHook);
  for (const hook of hooks) {
    let decision: AfterLlmCallDecision | null | undefined;
    try {
      decision = await hook({
        sessionId: turn.input.sessionId,
        turnId: turn.input.turnId,
        requestIndex: turn.requestIndex,
        message,
        retriesUsed: turn.afterLlmRetries,
        signal: turn.agent.signal ?? new AbortController().signal,
      });
    } catch (error) {
      stripToolCalls(message);
      failTurn(turn, { code: ErrorCode.Hook, message: `afterLlmCallHook failed: ${errorText(error)}` });
      return;
    }
    if (!decision) continue;
    switch (decision.type) {
      case "continue":
        continue;
      case "replaceText":
        replaceText(message, decision.text);
        continue;
      case "retry":
        if (turn.afterLlmRetries >= AFTER_LLM_HOOK_MAX_RETRIES) {
          turn.bridge.trace("llm", "warn", "afterLlmCallHook retry ignored: the per-turn budget is spent", {
            budget: AFTER_LLM_HOOK_MAX_RETRIES,
            reason: decision.reason,
          });
          continue;
        }
        turn.afterLlmRetries++;
        stripToolCalls(message);
        markDroppedResponse(message, decision.reason);
        turn.agent.followUp(createHiddenMessage(decision.prompt, "afterLlmCallHook"));
        turn.bridge.trace("llm", "info", "afterLlmCallHook asked for a retry", { reason: decision.reason, attempt: turn.afterLlmRetries });
        return;
      case "fail":
        stripToolCalls(message);
        failTurn(turn, { code: ErrorCode.Hook, message: `afterLlmCallHook failed the turn: ${decision.reason}` });
        return;
      default:
        stripToolCalls(message);
        failTurn(turn, { code: ErrorCode.Hook, message: `afterLlmCallHook returned an invalid decision: ${JSON.stringify(decision)}` });
        return;
    }
  }
}
