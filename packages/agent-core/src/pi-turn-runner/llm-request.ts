import type { Context } from "@mariozechner/pi-ai";
import { createOverflowRecoveryState, withOverflowRecovery } from "../call-stack/overflow-recovery.js";
import type { StreamFn } from "../call-stack/stream-fn.js";
import { syntheticResponse } from "../call-stack/synthetic-response.js";
import { projectAgentMessagesForModel } from "../messages/project-messages.js";
import { markDroppedResponse } from "../messages/turn-messages.js";
import { runBeforeLlmHooks } from "./before-llm-hooks.js";
import { hookArray } from "./turn-hooks.js";
import { reportTrace } from "./turn-log.js";
import { recordMetric } from "./turn-metrics.js";
import type { RunningTurn } from "./turn-state.js";
import { emitWarning } from "./turn-watching.js";

/**
 * The turn's stream function, around its call stack: a directive a
 * before-LLM hook left (`respond`, `skip`) answers without calling the
 * model; otherwise the request is counted (`llm.requests`) and sent, with
 * one resend after a context overflow when the before-LLM hooks changed
 * the messages. A `skip` or `respond` decided during that overflow
 * recovery answers the resend instead of the model, so no directive is
 * ever left over for a later request. (`onLlmCallPreparedHook` is called
 * deeper, where the options are final: see `announcePreparedRequest`.)
 * The request's signal is the loop's, passed on as `options.signal`.
 */
export function turnStreamFn(turn: RunningTurn): StreamFn {
  const recovered = overflowRecoveryOf(turn);
  return (model, context, options) => {
    const answered = answerDirective(turn, model);
    if (answered) return answered;
    recordMetric(turn, "llm.requests", 1, { provider: model.provider });
    return recovered ? recovered(model, context, options) : turn.mainCallStack(model, context, options);
  };
}

/**
 * The overflow recovery layer around the call stack, or `undefined` when it
 * could change nothing: without a before-LLM hook a recovery never resends
 * (see `recoverFromOverflow`), and the transport retry below already holds
 * events back until visible output and classifies every failure it ends
 * with, which is all the layer would do. With the retry off, the layer
 * still classifies the provider's failures, so it stays.
 */
function overflowRecoveryOf(turn: RunningTurn): StreamFn | undefined {
  if (hookArray(turn.hooks.beforeLlmCallHook).length === 0 && turn.input.llmRetry !== false) return undefined;
  const directedCallStack: StreamFn = (model, context, options) =>
    answerDirective(turn, model) ?? turn.mainCallStack(model, context, options);
  return withOverflowRecovery(directedCallStack, {
    state: createOverflowRecoveryState(),
    recover: ({ context, signal }) => recoverFromOverflow(turn, context, signal),
  });
}

/** Takes (and clears) the directive a before-LLM hook left, and answers it without the model; none: `undefined`. */
function answerDirective(
  turn: RunningTurn,
  model: Parameters<StreamFn>[0],
): ReturnType<typeof syntheticResponse> | undefined {
  const directive = turn.nextDirective;
  if (!directive) return undefined;
  turn.nextDirective = undefined;
  return syntheticResponse(model, directive.kind === "respond" ? directive.text : "", (message) => {
    if (directive.kind === "skip") markDroppedResponse(message, "skip");
  });
}

/**
 * Runs the before-LLM hooks again (reason `overflow`). The request is resent
 * when they changed something, or answered without the model when one of
 * them decided `skip` or `respond`; otherwise the overflow stands.
 */
async function recoverFromOverflow(
  turn: RunningTurn,
  context: Context,
  signal: AbortSignal | undefined,
): Promise<Context | undefined> {
  const messages = turn.loopMessages;
  if (!messages || hookArray(turn.hooks.beforeLlmCallHook).length === 0) return undefined;
  const before = messages.length;
  const snapshot = [...messages];
  reportTrace(turn, "llm", "warn", "context overflow: running the before-LLM hooks to recover", {
    requestIndex: turn.requestIndex,
  });
  const projected = await runBeforeLlmHooks(turn, messages, signal, "overflow");
  if (turn.nextDirective) return context;
  const changed = messages.length !== before || messages.some((message, index) => message !== snapshot[index]);
  if (!changed && projected === messages) {
    reportTrace(turn, "llm", "warn", "context overflow: the recovery hooks changed nothing; the turn fails");
    return undefined;
  }
  reportTrace(turn, "llm", "warn", "context overflow: resending once after recovery hooks");
  emitWarning(turn, {
    code: "overflow_recovery",
    message: "the conversation no longer fit the context window; it was shortened and the request is sent once more",
  });
  return { ...context, messages: projectAgentMessagesForModel(projected) };
}
