import { checkReadable } from "../input-reading.js";
import { describeValue, valueText } from "@turnkit/agent-loop/internal";
import type { CacheRetention, Context, ModelThinkingLevel } from "@mariozechner/pi-ai";
import { ConfigErrorCode, TurnkitConfigError } from "../errors.js";
import { assertKnownKeys } from "../known-keys.js";
import { modelProblem } from "./model-check.js";
import type { ClassifiedError } from "./classify-error.js";
import { attachClassifiedError } from "./classify-error.js";
import {
  DEFAULT_MODEL_FALLBACK_TRIGGERS,
  MODEL_FALLBACK_TRIGGERS,
  type LlmFallbackModel,
  type LlmFallbackOptions,
  type ModelFallbackTrigger,
} from "./model-fallback-options.js";
import { RelayStream } from "./relay-stream.js";
import { RetryAttempt } from "./retry-attempt.js";

export { DEFAULT_MODEL_FALLBACK_TRIGGERS, type LlmFallbackModel, type LlmFallbackOptions, type ModelFallbackTrigger };
import { pushTerminalError, type AnyModel, type StreamFn, type StreamFnOptions } from "./stream-fn.js";
import { mergeHeaders } from "./merge-headers.js";

/** One switch of a request to the next model, as the fallback layer reports it. */
export interface ModelFallbackNotice {
  /** The model that failed. */
  from: AnyModel;
  /** The model the request is sent to next. */
  to: AnyModel;
  /** Which trigger it was. */
  trigger: ModelFallbackTrigger;
  /** The failure of `from`, after its retries. */
  error: ClassifiedError;
}

/** What {@link withModelFallback} is built from. */
export interface ModelFallbackLayer {
  /** The resolved options (see {@link resolveModelFallback}). */
  fallback: ResolvedModelFallback;
  /** The stack below the layer for the turn's own model (usually its transport retry). */
  primary: StreamFn;
  /** The stack below the layer for each of `fallback.models`, same order. */
  stacks: readonly StreamFn[];
  /** Told of each switch before the next model is asked; must not throw. */
  onFallback?: (notice: ModelFallbackNotice) => void;
  /**
   * The turn's provider and credentials (`llm.apiKey`, `llm.headers`): a
   * fallback model of that provider without a key of its own gets them,
   * also when the request first went to another provider's model (a hook's
   * own request to a summary model). Absent: only the request's own.
   */
  turn?: { provider: string; apiKey?: string; headers?: Record<string, string> };
}

/** {@link LlmFallbackOptions} checked, with the default triggers filled in. */
export interface ResolvedModelFallback {
  models: readonly LlmFallbackModel[];
  on: ReadonlySet<ModelFallbackTrigger>;
}

const MODEL_KEYS: readonly (keyof LlmFallbackModel)[] = [
  "model",
  "apiKey",
  "streamFn",
  "thinkingLevel",
  "maxTokens",
  "headers",
  "cacheRetention",
];
const THINKING_LEVELS: readonly ModelThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];
const CACHE_RETENTIONS: readonly CacheRetention[] = ["none", "short", "long"];

/**
 * Checks `llm.fallback` and fills the default triggers; `undefined` when
 * absent or without models. Throws `TurnkitConfigError`
 * (`invalid_turn_input`, or `unknown_key` for a misspelt key) whose message
 * starts with the field at fault (`llm.fallback.models[1].model`,
 * `llm.fallback.on[0]`). Given the `turn`'s `llm` it is for, a model that
 * pi-ai sends to (neither its entry nor the turn has a stream function)
 * must have every field pi-ai's providers read; otherwise only the fields
 * present are checked for their type.
 */
export function resolveModelFallback(
  options: LlmFallbackOptions | undefined,
  turn?: { streamFn?: unknown },
): ResolvedModelFallback | undefined {
  return checkReadable("llm.fallback", ConfigErrorCode.InvalidTurnInput, () => resolveReadable(options, turn));
}

function resolveReadable(
  options: LlmFallbackOptions | undefined,
  turn: { streamFn?: unknown } | undefined,
): ResolvedModelFallback | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== "object" || options === null) throw invalid("llm.fallback", "must be an object", options);
  assertKnownKeys(options, ["models", "on"], "llm.fallback");
  if (!Array.isArray(options.models)) throw invalid("llm.fallback.models", "must be an array", options.models);
  options.models.forEach((entry, index) => {
    const where = `llm.fallback.models[${index}]`;
    checkReadable(where, ConfigErrorCode.InvalidTurnInput, () => checkModel(entry, where, turn));
  });
  const on = options.on ?? DEFAULT_MODEL_FALLBACK_TRIGGERS;
  if (!Array.isArray(on)) throw invalid("llm.fallback.on", "must be an array of triggers", on);
  on.forEach((trigger, index) => {
    if (!MODEL_FALLBACK_TRIGGERS.includes(trigger)) {
      throw invalid(`llm.fallback.on[${index}]`, `must be one of ${MODEL_FALLBACK_TRIGGERS.join(", ")}`, trigger);
    }
  });
  if (options.models.length === 0) return undefined;
  return { models: [...options.models], on: new Set(on) };
}

function checkModel(entry: LlmFallbackModel, where: string, turn: { streamFn?: unknown } | undefined): void {
  if (typeof entry !== "object" || entry === null) throw invalid(where, "must be an object with a model", entry);
  assertKnownKeys(entry, MODEL_KEYS, where);
  checkReadable(`${where}.model`, ConfigErrorCode.InvalidTurnInput, () => {
    const model = entry.model as unknown as Record<string, unknown> | undefined;
    if (
      typeof model !== "object" ||
      model === null ||
      typeof model.id !== "string" ||
      typeof model.api !== "string" ||
      typeof model.provider !== "string"
    ) {
      throw invalid(`${where}.model`, "must be a pi-ai Model (getModel(provider, id))", entry.model);
    }
    // Sent by pi-ai's streamSimple unless this entry or the turn has a stream function of the host's.
    const problem = modelProblem(
      model,
      turn !== undefined && entry.streamFn === undefined && turn.streamFn === undefined,
    );
    if (problem) throw new TurnkitConfigError(ConfigErrorCode.InvalidTurnInput, `${where}.model${problem}`);
  });
  if (entry.apiKey !== undefined && typeof entry.apiKey !== "string")
    throw invalid(`${where}.apiKey`, "must be a string", "(not shown)");
  if (entry.streamFn !== undefined && typeof entry.streamFn !== "function")
    throw invalid(`${where}.streamFn`, "must be a function", entry.streamFn);
  if (entry.maxTokens !== undefined && !(Number.isSafeInteger(entry.maxTokens) && entry.maxTokens > 0))
    throw invalid(`${where}.maxTokens`, "must be a positive integer", entry.maxTokens);
  if (entry.thinkingLevel !== undefined && !THINKING_LEVELS.includes(entry.thinkingLevel))
    throw invalid(`${where}.thinkingLevel`, `must be one of ${THINKING_LEVELS.join(", ")}`, entry.thinkingLevel);
  if (entry.cacheRetention !== undefined && !CACHE_RETENTIONS.includes(entry.cacheRetention))
    throw invalid(`${where}.cacheRetention`, `must be one of ${CACHE_RETENTIONS.join(", ")}`, entry.cacheRetention);
  const headers = `${where}.headers`;
  if (entry.headers !== undefined)
    checkReadable(headers, ConfigErrorCode.InvalidTurnInput, () => checkHeaders(entry.headers, headers));
}

/** Headers are sent as given: a plain object whose every value is a string (values are never shown: they may be keys). */
function checkHeaders(headers: unknown, where: string): void {
  if (typeof headers !== "object" || headers === null || Array.isArray(headers))
    throw invalid(where, "must be an object of header names to strings", headers);
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== "string") {
      throw new TurnkitConfigError(
        ConfigErrorCode.InvalidTurnInput,
        `${where}.${name} must be a string, got ${headerValueKind(value)}`,
      );
    }
  }
}

/** What a header value that is no string is, never the value itself: a number in the wrong place may be part of a key. */
function headerValueKind(value: unknown): string {
  if (typeof value === "number" || typeof value === "boolean") return `a ${typeof value}`;
  const shown = describeValue(value);
  return shown === "object" ? "an object" : shown;
}

/** Which trigger a failure is, if any (see {@link ModelFallbackTrigger}). */
export function fallbackTriggerOf(error: ClassifiedError): ModelFallbackTrigger | undefined {
  if (error.aborted) return undefined;
  switch (error.code) {
    case "quota":
    case "rate_limited":
    case "timeout":
    case "network":
    case "auth":
      return error.code;
    case "upstream":
      if (!error.retryable) return undefined;
      return error.status === 529 || /overloaded|server is busy/i.test(error.message) ? "overloaded" : "unavailable";
    default:
      return undefined;
  }
}

/**
 * The model fallback layer. A request goes to the turn's model through
 * `primary`; when it fails before any visible output (the stack below has
 * then spent its retries) with a failure whose trigger is in
 * `fallback.on`, it is sent to the next model of `fallback.models` through
 * that model's stack, with that model's options; and so on down the list.
 * A failure after visible output, an abort, a failure of another kind, or
 * the last model's failure is the request's final answer. Events are held
 * back until visible output, so the caller sees one model's answer only.
 * Never throws; `onFallback` is told of each switch first.
 */
export function withModelFallback(layer: ModelFallbackLayer): StreamFn {
  return (model, context, options) => {
    const out = new RelayStream();
    void sendWithFallback(layer, out, model, context, options);
    return out;
  };
}

async function sendWithFallback(
  layer: ModelFallbackLayer,
  out: RelayStream,
  model: AnyModel,
  context: Context,
  options: StreamFnOptions | undefined,
): Promise<void> {
  const { fallback, primary, stacks, onFallback, turn } = layer;
  let current = model;
  let stack = primary;
  let sendOptions = options;
  for (let next = 0; ; next++) {
    // Held back until visible output; undefined once committed (it streams on into `out` by itself).
    const attempt = new RetryAttempt(
      { streamFn: stack, label: "fallback", notify: () => {} },
      out,
      current,
      sendOptions,
      1,
      undefined,
    );
    const failed = await attempt.send(context);
    if (!failed) return;
    const trigger = fallbackTriggerOf(failed.classified);
    const entry = fallback.models[next];
    if (!entry || !trigger || !fallback.on.has(trigger) || options?.signal?.aborted) {
      return pushTerminalError(out, attachClassifiedError(failed.failure, failed.classified));
    }
    try {
      onFallback?.({ from: current, to: entry.model, trigger, error: failed.classified });
    } catch {
      // An observer; its failure never changes the request.
    }
    sendOptions = optionsFor(entry, model, options, turn);
    current = entry.model;
    stack = stacks[next]!;
  }
}

/**
 * The request's options for a fallback model: its own key and options over
 * the request's. A model of another provider than the request's gets
 * neither the request's key nor its headers, only its own, or the turn's
 * when it is of the turn's provider.
 */
function optionsFor(
  entry: LlmFallbackModel,
  requestModel: AnyModel,
  options: StreamFnOptions | undefined,
  turn: ModelFallbackLayer["turn"],
): StreamFnOptions {
  const sent: StreamFnOptions = { ...options };
  const sameProvider = entry.model.provider === requestModel.provider;
  const turnsProvider = !sameProvider && turn !== undefined && entry.model.provider === turn.provider;
  if (entry.apiKey !== undefined) sent.apiKey = entry.apiKey;
  else if (turnsProvider && turn.apiKey !== undefined) sent.apiKey = turn.apiKey;
  else if (!sameProvider) delete sent.apiKey;
  if (entry.thinkingLevel !== undefined) {
    if (entry.thinkingLevel === "off") delete sent.reasoning;
    else sent.reasoning = entry.thinkingLevel;
  }
  const limit = entry.model.maxTokens;
  if (entry.maxTokens !== undefined) sent.maxTokens = entry.maxTokens;
  else if (sent.maxTokens !== undefined && limit > 0 && sent.maxTokens > limit) sent.maxTokens = limit;
  // The request's headers are its provider's (an Authorization or key header among them): another provider gets its own only.
  if (!sameProvider) delete sent.headers;
  if (turnsProvider && turn.headers !== undefined) sent.headers = { ...turn.headers };
  if (entry.headers !== undefined) sent.headers = mergeHeaders(sent.headers, entry.headers);
  if (entry.cacheRetention !== undefined) sent.cacheRetention = entry.cacheRetention;
  return sent;
}

function invalid(field: string, rule: string, value: unknown): TurnkitConfigError {
  const shown = valueText(value);
  return new TurnkitConfigError(ConfigErrorCode.InvalidTurnInput, `${field} ${rule}, got ${shown}`);
}
