import type { CacheRetention, ModelThinkingLevel } from "@mariozechner/pi-ai";
import { TURN_DEFAULTS } from "../defaults.js";
import type { AnyModel, StreamFn } from "./stream-fn.js";

/**
 * The failures after which a request may move on to the next model, once
 * the current model's transport retries are spent:
 *
 * - `overloaded`: HTTP 529, or an "overloaded" / "server is busy" text;
 * - `unavailable`: any other retryable server error (500, 502, 503, 504,
 *   "service unavailable");
 * - `quota`: quota, plan or credit exhausted (402, a 429 or 5xx that says so);
 * - `rate_limited`, `timeout`, `network`, `auth`: the classification codes
 *   of the same names.
 */
export type ModelFallbackTrigger =
  | "overloaded"
  | "unavailable"
  | "quota"
  | "rate_limited"
  | "timeout"
  | "network"
  | "auth";

/** Every {@link ModelFallbackTrigger}, in the order documented there. */
export const MODEL_FALLBACK_TRIGGERS: readonly ModelFallbackTrigger[] = [
  "overloaded",
  "unavailable",
  "quota",
  "rate_limited",
  "timeout",
  "network",
  "auth",
];

/** The triggers when `llm.fallback.on` is absent (`TURN_DEFAULTS.modelFallbackTriggers`). */
export const DEFAULT_MODEL_FALLBACK_TRIGGERS: readonly ModelFallbackTrigger[] = TURN_DEFAULTS.modelFallbackTriggers;

/**
 * One model a request may switch to, with its own key and options. Absent
 * options are the turn's (`llm`), except `apiKey` and `headers`: absent,
 * the turn's key is used only for a model of the turn's provider, else
 * pi-ai reads the provider's environment variable; the turn's headers are
 * sent only to a model of the turn's provider (they may carry its
 * credentials).
 */
export interface LlmFallbackModel {
  /** The pi-ai model to send the request to. */
  model: AnyModel;
  /** Key for this model's provider; never logged or reported. */
  apiKey?: string;
  /** The innermost stream function for this model. Absent: the turn's `llm.streamFn`, else pi-ai's `streamSimple`. */
  streamFn?: StreamFn;
  /** Reasoning effort for this model; `"off"` disables thinking. Absent: the request's own. */
  thinkingLevel?: ModelThinkingLevel;
  /** Output-token limit for this model. Absent: the request's, lowered to this model's `maxTokens`. */
  maxTokens?: number;
  /** Extra HTTP headers: merged over the request's for a model of the turn's provider, the only ones for another provider. */
  headers?: Record<string, string>;
  /** Prompt-cache retention for this model. */
  cacheRetention?: CacheRetention;
}

/**
 * `llm.fallback`: the models a turn's requests move to, in order, when the
 * turn's model keeps failing with one of the `on` failures.
 */
export interface LlmFallbackOptions {
  /** Tried in order after the turn's model; each only once its predecessor's retries are spent. */
  models: LlmFallbackModel[];
  /** Which failures move a request on. Default: `overloaded`, `unavailable`, `quota`. */
  on?: ModelFallbackTrigger[];
}
