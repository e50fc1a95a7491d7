import type { Context, Model } from "@mariozechner/pi-ai";
import { createOverflowRecoveryState, withOverflowRecovery } from "../call-stack/overflow-recovery.js";
import type { StreamFn } from "../call-stack/stream-fn.js";
import { syntheticResponse } from "../call-stack/synthetic-response.js";
import { projectAgentMessagesForModel } from "../messages/project-messages.js";
import { markDroppedResponse } from "../messages/turn-messages.js";
import { runBeforeLlmHooks } from "./before-llm-hooks.js";
import { hookArray } from "./turn-hooks.js";
import { recordMetric } from "./turn-metrics.js";
import type { RunningTurn } from "./turn-state.js";

/**
 * The turn's stream function, around its call stack: a directive a
 * before-LLM hook left (`respond`, `skip`) answers without calling the
 * model; otherwise the prepared request is shown to `onLlmCallPreparedHook`,
 * counted (`llm.requests`) and sent, with one resend after a context
 * overflow when the before-LLM hooks changed the messages.
 */
export function turnStreamFn(turn: RunningTurn): StreamFn {
  const recovered = withOverflowRecovery(turn.mainCallStack, {
    state: createOverflowRecoveryState(),
    recover: ({ context, signal }) => recoverFromOverflow(turn, context, signal),
  });
  return (model, context, options) => {
    const directive = turn.nextDirective;
    turn.nextDirective = undefined;
    if (directive) {
      return syntheticResponse(model, directive.kind === "respond" ? directive.text : "", (message) => {
        if (directive.kind === "skip") markDroppedResponse(message, "skip");
      });
    }
    notifyPrepared(turn, model, context, options as Record<string, unknown> | undefined);
    recordMetric(turn, "llm.requests", 1, { provider: model.provider });
    return recovered(model, context, options);
  };
}

/** Runs the before-LLM hooks again (reason `overflow`); the request is resent only when they changed something. */
async function recoverFromOverflow(turn: RunningTurn, context: Context, signal: AbortSignal | undefined): Promise<Context | undefined> {
  const messages = turn.loopMessages;
  if (!messages || hookArray(turn.hooks.beforeLlmCallHook).length === 0) return undefined;
  const before = messages.length;
  const snapshot = [...messages];
  const projected = await runBeforeLlmHooks(turn, messages, signal, "overflow");
  const changed = messages.length !== before || messages.some((message, index) => message !== snapshot[index]);
  if (!changed && projected === messages) return undefined;
  turn.bridge.trace("llm", "warn", "context overflow: resending once after recovery hooks");
  return { ...context, messages: projectAgentMessagesForModel(projected) };
}

/** Shows the request as sent to every `onLlmCallPreparedHook`; an observer's failure never affects the call. */
function notifyPrepared(turn: RunningTurn, model: Model<any>, context: Context, options: Record<string, unknown> | undefined): void {
  const hooks = hookArray(turn.hooks.onLlmCallPreparedHook);
  if (hooks.length === 0) return;
  const event = {
    sessionId: turn.input.sessionId,
    turnId: turn.input.turnId,
    requestIndex: turn.requestIndex,
    model,
    context,
    options: publicOptions(options),
  };
  for (const hook of hooks) {
    try {
      const result = hook(event);
      if (result && typeof (result as Promise<void>).then === "function") (result as Promise<void>).catch(() => undefined);
    } catch {
      // An observer; its failure never affects the call.
    }
  }
}

/** Options of a request as a hook may see them: no credentials, signal or functions. */
function publicOptions(options: Record<string, unknown> | undefined): Record<string, unknown> {
  const visible: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options ?? {})) {
    if (key === "apiKey" || key === "signal" || key === "headers" || typeof value === "function") continue;
    visible[key] = value;
  }
  return visible;
}
