import type { Api, CacheRetention, Model, ModelThinkingLevel, ProviderResponse } from "@mariozechner/pi-ai";
import type { ClassifiedError } from "./classify-error.js";
import type { LlmFallbackOptions } from "./model-fallback-options.js";
import type { AnyModel, StreamFn } from "./stream-fn.js";

/**
 * The `llm` field of `RunTurnInput`: which model a turn talks to and
 * how each request is shaped. Every field but `model` is optional; an absent
 * field leaves the provider's (or Turnkit's, see `defaults.ts`) default.
 *
 * `composeStreamFn` turns the request-shaping fields into one stream
 * function; `withStreamTimeouts` reads the two timeouts. The runner passes
 * `apiKey`, `thinkingLevel`, `payloadTransform` and `responseObserver` to the
 * Agent (`getApiKey`, `thinkingLevel`, `onPayload`, `onResponse`).
 */
export interface LlmConfig {
  /** The pi-ai model every request of the turn goes to. */
  model: AnyModel;
  /** Key for the model's provider; never logged or reported. Absent: pi-ai reads the provider's env variable. */
  apiKey?: string;
  /** The innermost stream function. Absent: pi-ai's `streamSimple`. */
  streamFn?: StreamFn;
  /** Reasoning effort; `"off"` disables thinking. */
  thinkingLevel?: ModelThinkingLevel;
  /** Prompt-cache retention preference, sent when a request does not set its own. */
  cacheRetention?: CacheRetention;
  /**
   * Output-token limit sent when a request does not set a positive integer
   * (never more than `model.maxTokens`: a higher value is lowered to it). Must
   * be a positive (safe) integer; anything else throws `TurnkitConfigError`
   * naming the field when the turn is built.
   */
  maxTokens?: number;
  /**
   * A ceiling the host imposes on output tokens, whatever the request or the
   * model asks for: each request is sent with the smallest positive of this
   * cap, the request's `maxTokens` and `model.maxTokens`. Must be a positive
   * integer; anything else throws `TurnkitConfigError` (`invalid_host_cap`)
   * when the turn is built.
   */
  hostMaxOutputTokens?: number;
  /** Extra HTTP headers for every request; a request's own headers win on conflicts. */
  headers?: Record<string, string>;
  /**
   * A `fetch` for stream functions that accept one (read as `options.fetch`).
   * pi-ai 0.73's built-in providers do not: they use their SDK's transport, so
   * with `streamSimple` this field has no effect.
   */
  fetch?: typeof globalThis.fetch;
  /**
   * Per attempt, how long to wait for the first stream event. `0` disables.
   * Absent: env `TURNKIT_LLM_FIRST_EVENT_TIMEOUT_MS`, else 120 s.
   */
  firstEventTimeoutMs?: number;
  /**
   * Per attempt, how long the stream may stay silent between two events. `0`
   * disables. Absent: env `TURNKIT_LLM_STREAM_IDLE_TIMEOUT_MS`, else 300 s.
   */
  streamIdleTimeoutMs?: number;
  /**
   * Inspect or replace the provider payload before it is sent (pi-ai
   * `onPayload`); return `undefined` to keep it. In a `PiTurnRunner` turn a
   * throw or rejection is the host's failure, not the provider's: the turn
   * ends `failed` with code `internal` naming the callback, whatever the
   * text, and the request is not retried.
   */
  payloadTransform?: (payload: unknown, model: Model<Api>) => unknown | undefined | Promise<unknown | undefined>;
  /**
   * Observe the HTTP status and headers of each response the stream function
   * reports, before its body is read (pi-ai `onResponse`). pi-ai 0.73.1's
   * built-in providers report 2xx responses only; custom stream functions and
   * gateways may report error responses too. The retry layer chains its own
   * observer behind this one (this one is called first) to read Retry-After.
   * A throw or rejection fails a `PiTurnRunner` turn as `payloadTransform`'s
   * does (`internal`, never retried).
   */
  responseObserver?: (response: ProviderResponse, model: Model<Api>) => void | Promise<void>;
  /**
   * Other models to answer a request when this one keeps failing (a main
   * request, or a hook's own through `auxiliaryStreamFn`, whichever model it
   * first went to): after
   * its transport retries are spent, a failure of a kind listed in `on`
   * (default `overloaded`, `unavailable`, `quota`) sends the request to the
   * next model of `models`, with that model's key and options; never once
   * output was streamed. Each switch is a `runtime.warning`
   * (`model_fallback`), and the request's timing in the turn report lists
   * the models it went to. A malformed entry throws `TurnkitConfigError`
   * naming the field when the turn is built.
   */
  fallback?: LlmFallbackOptions;
}

/**
 * One notification of the transport retry layer, in the order they
 * can happen for one request:
 *
 * - `waiting`: attempt `attempt` failed with a retryable `error`; the next
 *   attempt starts after `delayMs`.
 * - `recovered`: attempt `attempt` (after at least one `waiting`) reached
 *   visible output or finished; the request goes on with it.
 * - `exhausted`: the request failed for good with `error` after `attempts`
 *   attempts; `reason` says why (see {@link LlmRetryExhaustedReason}).
 * - `cancelled`: the caller's signal fired after at least one failed attempt
 *   (during a backoff or a later attempt).
 *
 * `label` names the request family (`"main"`, `"auxiliary"`, ...) given to
 * the wrapper.
 */
export type LlmRetryNotification =
  | { type: "waiting"; label: string; attempt: number; delayMs: number; error: ClassifiedError }
  | { type: "recovered"; label: string; attempt: number }
  | { type: "exhausted"; label: string; attempts: number; reason: LlmRetryExhaustedReason; error: ClassifiedError }
  | { type: "cancelled"; label: string; attempt: number };

/**
 * Why the retry layer gave up: `max_retries` (a retryable failure, and
 * `maxRetries` retries were spent), `max_elapsed` (the next wait, backoff or
 * the provider's Retry-After, would have ended after `maxRetryElapsedMs`),
 * `not_retryable` (a later attempt failed in a way that is never retried).
 */
export type LlmRetryExhaustedReason = "max_retries" | "max_elapsed" | "not_retryable";

/**
 * Receives {@link LlmRetryNotification}s. It may be async; it is never
 * awaited, and whatever it throws or rejects with is swallowed: an observer
 * cannot break or slow a request.
 */
export type LlmRetryObserver = (notification: LlmRetryNotification) => void | Promise<void>;

/**
 * `RunTurnInput.llmRetry`. Each field is optional and falls back to
 * the defaults in `defaults.ts`; `false` instead of this object turns
 * retrying off (a single attempt, still sent with provider retries off).
 */
export interface LlmRetryOptions {
  /** Retries after the first attempt. Default 5. A non-negative integer. */
  maxRetries?: number;
  /** First backoff before jitter; doubles per retry. Default 1000 ms. */
  baseDelayMs?: number;
  /** Cap of each single wait, also of a provider's Retry-After. Default 30 000 ms. */
  maxDelayMs?: number;
  /** No wait starts that would end later than this after the first failure. Default 120 000 ms. */
  maxRetryElapsedMs?: number;
  /** Notified of waits, recovery, exhaustion and cancellation. */
  observer?: LlmRetryObserver;
}
