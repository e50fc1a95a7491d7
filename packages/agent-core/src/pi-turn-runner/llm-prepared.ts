import type { Context, Model } from "@mariozechner/pi-ai";
import type { StreamFn } from "../call-stack/stream-fn.js";
import { hookArray } from "./turn-hooks.js";
import type { TurnState } from "./turn-state.js";

/**
 * Wraps the innermost stream function of the turn's main call stack (the
 * one every option layer, the timeouts and the transport retry call) so
 * each model request is shown to the `onLlmCallPreparedHook`s with the
 * options as actually sent: `maxTokens` after the host cap,
 * `cacheRetention`, `timeoutMs`, `maxRetries: 0`, ... Announced once per
 * request: a transport retry or an overflow resend of the same request is
 * not announced again.
 */
export function announcePreparedRequest(turn: TurnState, streamFn: StreamFn): StreamFn {
  return (model, context, options) => {
    if (turn.announcedRequestIndex < turn.requestIndex) {
      turn.announcedRequestIndex = turn.requestIndex;
      notifyPrepared(turn, model, context, options as Record<string, unknown> | undefined);
    }
    return streamFn(model, context, options);
  };
}

/** Shows the request as sent to every `onLlmCallPreparedHook`; an observer's failure never affects the call. */
function notifyPrepared(
  turn: TurnState,
  model: Model<any>,
  context: Context,
  options: Record<string, unknown> | undefined,
): void {
  const hooks = hookArray(turn.hooks.onLlmCallPreparedHook);
  if (hooks.length === 0 || turn.settled) return;
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
      if (result && typeof (result as Promise<void>).then === "function")
        (result as Promise<void>).catch(() => undefined);
    } catch {
      // An observer; its failure never affects the call.
    }
  }
}

/** Options of a request as a hook may see them: no credentials (`apiKey`, `headers`), signal or functions. */
function publicOptions(options: Record<string, unknown> | undefined): Record<string, unknown> {
  const visible: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options ?? {})) {
    if (key === "apiKey" || key === "signal" || key === "headers" || typeof value === "function") continue;
    visible[key] = value;
  }
  return visible;
}
