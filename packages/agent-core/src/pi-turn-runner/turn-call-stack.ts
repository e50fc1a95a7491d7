import { type AssistantMessageEvent, type Context, type Model, streamSimple } from "@mariozechner/pi-ai";
import { createOverflowRecoveryState, withOverflowRecovery } from "../call-stack/overflow-recovery.js";
import type { LlmRetryNotification } from "../call-stack/llm-config.js";
import { type RetryLayer, RetriedRequest, withLlmRetry } from "../call-stack/llm-retry.js";
import { resolveLlmRetryPolicy, type LlmRetryPolicy } from "../call-stack/llm-retry-policy.js";
import { resolveWatchdogs, type Watchdogs } from "../call-stack/stream-timeouts.js";
import type { Clock, RandomSource } from "../clock.js";
import { type ModelFallbackNotice, resolveModelFallback, withModelFallback } from "../call-stack/model-fallback.js";
import { type OptionLayersConfig, optionLayers } from "../call-stack/option-layers.js";
import type { AnyModel, StreamFn, StreamFnOptions } from "../call-stack/stream-fn.js";
import { syntheticResponse } from "../call-stack/synthetic-response.js";
import { copyForHost } from "../messages/host-copy.js";
import { projectAgentMessagesForModel } from "../messages/project-messages.js";
import { markDroppedResponse } from "../messages/turn-messages.js";
import type { RequestFamily } from "../turn-watch/usage-ledger.js";
import { runBeforeLlmHooks } from "./before-llm-hooks.js";
import { hookArray } from "./turn-hooks.js";
import { reportTrace } from "./turn-log.js";
import { recordMetric } from "./turn-metrics.js";
import type { RunningTurn, TurnState } from "./turn-state.js";
import { emitWarning } from "./turn-watching.js";

/**
 * The turn's call stack, top to bottom. One model request of the loop goes
 * through:
 *
 * 1. the directive a before-LLM hook left: `respond` or `skip` answers
 *    without the model; otherwise the request is counted (`llm.requests`);
 * 2. overflow recovery (`withOverflowRecovery`), only where it can change
 *    something: with before-LLM hooks (it runs them again and resends once),
 *    or with the retry off (it then classifies the provider's failures);
 * 3. the turn's watch: the request starts (timing, usage, spans);
 * 4. the option layers (`optionLayers`): request timeout, `fetch`, headers,
 *    `maxTokens`, cache retention, the host cap;
 * 5. model fallback (`withModelFallback`), only with `llm.fallback`: once
 *    a model's retries are spent on a failure the host named, the request
 *    goes to the next model, through steps 6 to 8 of its own;
 * 6. the transport retry (`RetriedRequest`, as `withLlmRetry` sends; one
 *    `TurnRetryLayer` per request family), which keeps the stream watchdogs
 *    of each attempt, shows the watch every attempt and reports its notices;
 *    it reads each attempt's stream itself, one read per event;
 * 7. `onLlmCallPreparedHook`, shown a copy of each request once, as sent;
 * 8. the provider: `llm.streamFn` (a fallback model's own `streamFn`), or
 *    pi-ai's `streamSimple`.
 *
 * A request's signal is the caller's `options.signal` (the loop's), and
 * each layer below follows it. Built with the turn (step 1), so a bad
 * config throws before any event; it is called only once the Agent runs.
 */
export function mainCallStack(turn: TurnState): StreamFn {
  const { llm } = turn.input;
  const sent = (streamFn: StreamFn | undefined) =>
    retried(turn, "main", announcingPrepared(turn, streamFn ?? llm.streamFn ?? streamSimple));
  const watched = watchedRequests(turn, "main", modelFallback(turn, "main", sent));
  const recovered = overflowRecovery(turn, watched);
  return (model, context, options) => {
    const answered = answerDirective(turn, model);
    if (answered) return answered;
    if (turn.defaults.metrics) recordMetric(turn, "llm.requests", 1, { provider: model.provider });
    return recovered(model, context, options);
  };
}

/**
 * The call stack of the hooks' own requests (`auxiliaryStreamFn`): steps 3
 * to 6 (`llm.fallback` from whichever model a request first went to) and
 * the provider, with a retry budget of their own; the turn's signal
 * unless the call gives its own. A model of the turn's provider gets
 * the turn's API key (unless the call gives one) and `llm.headers`; a model
 * of another provider gets neither, as they may carry the turn's provider's
 * credentials. Built at the first such request (most turns make none); the
 * main stack, built from the same config with the turn, has checked that
 * config already.
 */
export function auxiliaryCallStack(turn: TurnState): StreamFn {
  const { llm } = turn.input;
  const sent = modelFallback(turn, "auxiliary", (streamFn) =>
    retried(turn, "auxiliary", streamFn ?? llm.streamFn ?? streamSimple),
  );
  const own = watchedRequests(turn, "auxiliary", sent);
  const foreign = watchedRequests(turn, "auxiliary", sent, { ...llm, headers: undefined });
  return (model, context, options) => {
    const sameProvider = model.provider === llm.model.provider;
    return (sameProvider ? own : foreign)(model, context, {
      ...(sameProvider && { apiKey: llm.apiKey }),
      ...options,
      signal: options?.signal ?? turn.agent?.signal,
    });
  };
}

// ------------------------------------------------------------ the layers, in the order above

/** Takes (and clears) the directive a before-LLM hook left, and answers it without the model; none: `undefined`. */
function answerDirective(turn: TurnState, model: AnyModel): ReturnType<StreamFn> | undefined {
  const directive = turn.nextDirective;
  if (!directive) return undefined;
  turn.nextDirective = undefined;
  return syntheticResponse(model, directive.kind === "respond" ? directive.text : "", (message) => {
    if (directive.kind === "skip") markDroppedResponse(message, "skip");
  });
}

/**
 * The overflow recovery layer, or `streamFn` itself when it could change
 * nothing: without a before-LLM hook a recovery never resends, and the
 * transport retry already holds events back until visible output and
 * classifies every failure it ends with. A directive decided during the
 * recovery answers the resend instead of the model.
 */
function overflowRecovery(turn: TurnState, streamFn: StreamFn): StreamFn {
  if (hookArray(turn.hooks.beforeLlmCallHook).length === 0 && turn.input.llmRetry !== false) return streamFn;
  const directed: StreamFn = (model, context, options) =>
    answerDirective(turn, model) ?? streamFn(model, context, options);
  return withOverflowRecovery(directed, {
    state: createOverflowRecoveryState(),
    // Requests run only once the Agent exists (step 3 on).
    recover: ({ context, signal }) => recoverFromOverflow(turn as RunningTurn, context, signal),
  });
}

/**
 * The model fallback layer of `family` over one stack per model (`sent` builds steps 6 to 8 for a stream
 * function), or the request's model's stack alone without `llm.fallback`. A bad list throws before any event.
 */
function modelFallback(
  turn: TurnState,
  family: RequestFamily,
  sent: (streamFn: StreamFn | undefined) => StreamFn,
): StreamFn {
  const fallback = resolveModelFallback(turn.input.llm.fallback, turn.input.llm);
  if (!fallback) return sent(undefined);
  return withModelFallback({
    fallback,
    primary: sent(undefined),
    stacks: fallback.models.map((entry) => sent(entry.streamFn)),
    onFallback: (notice) => reportFallback(turn, family, notice),
    turn: { provider: turn.input.llm.model.provider, apiKey: turn.input.llm.apiKey, headers: turn.input.llm.headers },
  });
}

/** Each request of `family` starts in the turn's watch, then goes through the option layers (of `llm`) to `streamFn`. */
function watchedRequests(
  turn: TurnState,
  family: RequestFamily,
  streamFn: StreamFn,
  llm: OptionLayersConfig = turn.input.llm,
): StreamFn {
  const applyOptions = optionLayers(llm);
  return (model, context, options) => {
    turn.watch.requestStarted(family, model, context);
    return streamFn(model, context, applyOptions(options, model));
  };
}

/** The transport retry of `family` (its own budget; notices labelled with it), with the stream watchdogs of each attempt, showing the watch every attempt. */
function retried(turn: TurnState, family: RequestFamily, streamFn: StreamFn): StreamFn {
  const { input, defaults } = turn;
  const timeouts = {
    firstEventTimeoutMs: input.llm.firstEventTimeoutMs,
    streamIdleTimeoutMs: input.llm.streamIdleTimeoutMs,
  };
  if (input.llmRetry === false) {
    return withLlmRetry(streamFn, false, {
      clock: defaults.clock,
      timeouts,
      onAttempt: (model, context) => turn.watch.attemptStarted(family, model, context),
    });
  }
  const layer = new TurnRetryLayer(turn, family, streamFn, resolveWatchdogs(timeouts, defaults.clock));
  return (model, context, options) => RetriedRequest.send(layer, model, context, options);
}

/**
 * The retry layer of one request family of a turn: the turn's retry
 * options, clock and randomness; its notices and attempts go to the turn.
 * One object per family, built with the call stack (a bad `llmRetry`
 * throws then).
 */
class TurnRetryLayer implements RetryLayer {
  readonly policy: LlmRetryPolicy;
  readonly clock: Clock;
  readonly random: RandomSource;

  constructor(
    private readonly turn: TurnState,
    readonly label: RequestFamily,
    readonly streamFn: StreamFn,
    readonly watchdogs: Watchdogs,
  ) {
    this.policy = resolveLlmRetryPolicy(turn.input.llmRetry || undefined);
    this.clock = turn.defaults.clock;
    this.random = turn.defaults.random;
  }

  notify(notification: LlmRetryNotification): void {
    // A notice never changes the request: a failure to report it is dropped.
    reportRetryNotice(this.turn, notification).then(undefined, () => undefined);
  }

  onAttempt(model: AnyModel, context: Context): (event: AssistantMessageEvent) => void {
    return this.turn.watch.attemptStarted(this.label, model as Model<any>, context);
  }
}

/**
 * Shows a copy of each model request to the `onLlmCallPreparedHook`s with the
 * options as sent (`maxTokens` after the host cap, `cacheRetention`,
 * `timeoutMs`, `maxRetries: 0`, ...), once per request, model (each model of
 * a fallback chain has a stack of its own) and context: a transport retry
 * (the same context) is not announced again, an overflow resend is.
 */
function announcingPrepared(turn: TurnState, streamFn: StreamFn): StreamFn {
  const hooks = hookArray(turn.input.hooks?.onLlmCallPreparedHook);
  if (hooks.length === 0) return streamFn;
  let announced: { requestIndex: number; context: Context } | undefined;
  return (model, context, options) => {
    const shown = announced?.requestIndex === turn.requestIndex && announced.context === context;
    if (!shown && !turn.settled) {
      announced = { requestIndex: turn.requestIndex, context };
      const event = {
        sessionId: turn.input.sessionId,
        turnId: turn.input.turnId,
        requestIndex: turn.requestIndex,
        model: model as Model<any>,
        context: copyForHost(context),
        options: publicOptions(options),
      };
      for (const hook of hooks) {
        try {
          const result = hook(event);
          if (result && typeof (result as Promise<void>).then === "function")
            (result as Promise<void>).then(undefined, () => undefined);
        } catch {
          // An observer; its failure never affects the call.
        }
      }
    }
    return streamFn(model, context, options);
  };
}

/** Options of a request as a hook may see them: no credentials (`apiKey`, `headers`), signal or functions. */
function publicOptions(options: StreamFnOptions | undefined): Record<string, unknown> {
  const visible: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options ?? {})) {
    if (key === "apiKey" || key === "signal" || key === "headers" || typeof value === "function") continue;
    visible[key] = value;
  }
  return visible;
}

// ------------------------------------------------------------ what the layers report back

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

/** Reports a switch of a `family` request to the next model as a `runtime.warning` (`model_fallback`), a `debug.trace` and to the logger. */
function reportFallback(turn: TurnState, family: RequestFamily, notice: ModelFallbackNotice): void {
  const from = `${notice.from.provider}/${notice.from.id}`;
  const to = `${notice.to.provider}/${notice.to.id}`;
  const message = `${from} failed (${notice.trigger}: ${notice.error.message}); the request goes to ${to}`;
  const error = { code: notice.error.code, message: notice.error.message };
  if (!turn.settled) {
    turn.bridge.trace("llm.fallback", "warn", message, { family, from, to, trigger: notice.trigger, error });
    emitWarning(turn, { code: "model_fallback", message, family, from, to, trigger: notice.trigger, error });
  }
  turn.defaults.logger.warn(message, {
    phase: "llm.fallback",
    from,
    to,
    trigger: notice.trigger,
    turnId: turn.input.turnId,
  });
}

/**
 * Reports a transport retry notice as a `debug.trace` (message: the notice
 * type) and to the logger in words (waits and cancellations are `warn`,
 * giving up is left to the turn's failure), to the watch, then to the
 * host's observer, whose errors are swallowed.
 */
async function reportRetryNotice(turn: TurnState, notice: LlmRetryNotification): Promise<void> {
  const level = notice.type === "exhausted" ? "error" : notice.type === "waiting" ? "warn" : "info";
  const attrs: Record<string, unknown> = { ...notice };
  if ("error" in notice)
    attrs.error = { code: notice.error.code, message: notice.error.message, status: notice.error.status };
  if (!turn.settled) {
    turn.bridge.trace("llm.retry", level, notice.type, attrs);
    turn.watch.retryNotice(notice);
  }
  turn.defaults.logger[level === "info" ? "debug" : "warn"](retryNoticeText(notice), {
    phase: "llm.retry",
    ...attrs,
    turnId: turn.input.turnId,
  });
  const observer = turn.input.llmRetry === false ? undefined : turn.input.llmRetry?.observer;
  try {
    await observer?.(notice);
  } catch {
    // Observer errors are swallowed: a notice never changes the request.
  }
}

/** A retry notice in words, for the logger. */
function retryNoticeText(notice: LlmRetryNotification): string {
  switch (notice.type) {
    case "waiting":
      return `LLM request (${notice.label}) attempt ${notice.attempt} failed (${notice.error.code}: ${notice.error.message}); retrying in ${notice.delayMs} ms`;
    case "recovered":
      return `LLM request (${notice.label}) recovered at attempt ${notice.attempt}`;
    case "exhausted":
      return `LLM request (${notice.label}) gave up after ${notice.attempts} attempts (${notice.reason}): ${notice.error.code}: ${notice.error.message}`;
    case "cancelled":
      return `LLM request (${notice.label}) cancelled during retries at attempt ${notice.attempt}`;
    default: {
      const unreachable: never = notice;
      return unreachable;
    }
  }
}
