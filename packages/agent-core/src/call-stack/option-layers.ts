import { describeValue } from "@turnkit/agent-loop/internal";
import { type CacheRetention, streamSimple } from "@mariozechner/pi-ai";
import { TURN_DEFAULTS } from "../defaults.js";
import { ConfigErrorCode, TurnkitConfigError } from "../errors.js";
import { assertLlmConfigShape } from "../pi-turn-runner/run-turn-input-shape.js";
import type { LlmConfig } from "./llm-config.js";
import { type AnyModel, invokeStreamFn, type StreamFn, type StreamFnOptions } from "./stream-fn.js";
import { mergeHeaders } from "./merge-headers.js";

/*
 * The option layers: the rules by which a turn's `llm` config shapes each
 * request's options. One implementation, used by `composeStreamFn` (and the
 * six single-option wrappers a host may compose itself) and by the runner.
 */

/** The request-shaping fields of {@link LlmConfig}. */
export type OptionLayersConfig = Omit<LlmConfig, "streamFn" | "model" | "fallback">;

/** Gives the options a request is sent with: a copy of the caller's, with every layer's rule applied. */
export type ApplyOptionLayers = (options: StreamFnOptions | undefined, model: AnyModel) => StreamFnOptions;

/**
 * The six option layers of `llm` as one function, applied outermost first:
 * request timeout (20 min unless the request sets its own), `fetch`,
 * `headers` (the request's own win on a name in both, in any case), `maxTokens` (unless
 * the request asks for a positive integer), `cacheRetention`, and the
 * ceilings last: the host cap (the smallest of the cap, the request's
 * `maxTokens` and the model's) and the model's own `maxTokens` (a request
 * never asks for more than its model can give). Each layer fills only its
 * own option, and only when the request does not set it (the ceilings
 * always apply). A request's `maxTokens` that is no positive integer (0,
 * negative, `NaN`, a fraction) is not sent: the turn's fills it, or the
 * provider's default applies. The caller's options are never changed.
 *
 * Throws `TurnkitConfigError` at once for an invalid `hostMaxOutputTokens`
 * (`invalid_host_cap`) or `cacheRetention` (`invalid_turn_input`).
 */
export function optionLayers(llm: OptionLayersConfig): ApplyOptionLayers {
  const { hostMaxOutputTokens: cap, cacheRetention, maxTokens, fetch } = llm;
  if (cap !== undefined) assertValidHostCap(cap);
  if (cacheRetention !== undefined) assertValidCacheRetention(cacheRetention);
  const headers = llm.headers !== undefined && Object.keys(llm.headers).length > 0 ? { ...llm.headers } : undefined;
  return (callerOptions, model) => {
    const options: StreamFnOptions = { ...callerOptions };
    if (options.maxTokens !== undefined && !isTokenCount(options.maxTokens)) delete options.maxTokens;
    fillRequestTimeout(options, TURN_DEFAULTS.llmRequestTimeoutMs);
    if (fetch !== undefined) fillFetch(options, fetch);
    if (headers !== undefined) fillHeaders(options, headers);
    if (isTokenCount(maxTokens)) fillMaxTokens(options, maxTokens);
    if (cacheRetention !== undefined) fillCacheRetention(options, cacheRetention);
    if (cap !== undefined) fillHostCap(options, cap, model);
    keepToModelLimit(options, model);
    return options;
  };
}

/**
 * Builds the stream function of a turn from its `llm` config:
 * `llm.streamFn` (default pi-ai `streamSimple`), each request sent with the
 * options of {@link optionLayers}. Throws its `TurnkitConfigError`s at once.
 * The returned function never throws or rejects: a failure of the wrapped
 * function becomes a terminal `error` event. An `llm` that is no object, or
 * has an unknown key or a value of the wrong type, throws a
 * `TurnkitConfigError` naming the field (`composeStreamFn: llm.streamFn
 * must be a function, got 5`).
 *
 * Timeouts, retry and overflow recovery are separate layers, applied around
 * this function in that order (`withStreamTimeouts`, `withLlmRetry`,
 * `withOverflowRecovery`).
 */
export function composeStreamFn(llm: LlmConfig): StreamFn {
  assertLlmConfigShape(llm, "composeStreamFn: llm");
  const streamFn = llm.streamFn ?? streamSimple;
  const apply = optionLayers(llm);
  return (model, context, options) => invokeStreamFn(streamFn, model, context, apply(options, model));
}

// ------------------------------------------------------------ one layer each

/**
 * Caps output tokens at the host's ceiling: every request is sent with the
 * smallest positive of `hostMaxOutputTokens`, the request's `maxTokens` and
 * `model.maxTokens`. A request that asks for less than the cap keeps its
 * value. `undefined` returns `streamFn` unchanged. Anything but a positive
 * integer number throws `TurnkitConfigError` (`invalid_host_cap`) here, so
 * no request is ever sent with a bad cap.
 */
export function withHostMaxOutputTokens(streamFn: StreamFn, hostMaxOutputTokens: number | undefined): StreamFn {
  if (hostMaxOutputTokens === undefined) return streamFn;
  assertValidHostCap(hostMaxOutputTokens);
  return filling(streamFn, (options, model) => fillHostCap(options, hostMaxOutputTokens, model));
}

/**
 * Sends `cacheRetention` with every request that does not set its own.
 * `undefined` returns `streamFn` unchanged; a value other than `none`,
 * `short` or `long` throws `TurnkitConfigError` (`invalid_turn_input`).
 */
export function withCacheRetention(streamFn: StreamFn, cacheRetention: CacheRetention | undefined): StreamFn {
  if (cacheRetention === undefined) return streamFn;
  assertValidCacheRetention(cacheRetention);
  return filling(streamFn, (options) => fillCacheRetention(options, cacheRetention));
}

/**
 * Sends `maxTokens` with every request that does not ask for a positive
 * integer itself. Only a positive integer has an effect; anything else
 * returns `streamFn` unchanged (the provider's default applies).
 */
export function withMaxTokens(streamFn: StreamFn, maxTokens: number | undefined): StreamFn {
  if (!isTokenCount(maxTokens)) return streamFn;
  return filling(streamFn, (options) => fillMaxTokens(options, maxTokens));
}

/**
 * Merges `headers` into every request's headers; on a name present in both
 * (in any case: `X-Title` is `x-title`), only the request's own value is sent. Empty or absent `headers` return `streamFn`
 * unchanged, so a request never gains an empty `headers` object.
 */
export function withHeaders(streamFn: StreamFn, headers: Record<string, string> | undefined): StreamFn {
  if (headers === undefined || Object.keys(headers).length === 0) return streamFn;
  const fixed = { ...headers };
  return filling(streamFn, (options) => fillHeaders(options, fixed));
}

/** Stream options as seen by a stream function that accepts a custom `fetch`. */
export type StreamFnOptionsWithFetch = StreamFnOptions & {
  /** The `fetch` the stream function should use for its HTTP requests; a request's own wins over `withFetch`'s. */
  fetch?: typeof globalThis.fetch;
};

/**
 * Passes `fetch` as `options.fetch` to every request that does not carry its
 * own. Only stream functions that read `options.fetch` use it; pi-ai 0.73's
 * built-in providers (`streamSimple`) ignore it, since they talk HTTP
 * through their SDKs. `undefined` returns `streamFn` unchanged.
 */
export function withFetch(streamFn: StreamFn, fetch: typeof globalThis.fetch | undefined): StreamFn {
  if (fetch === undefined) return streamFn;
  return filling(streamFn, (options) => fillFetch(options, fetch));
}

/**
 * Sends `timeoutMs` (default 20 min) with every request that does not set
 * its own. SDK-backed providers use it as their request timeout. `0`
 * returns `streamFn` unchanged (the provider's own default applies). The
 * per-attempt watchdogs of `withStreamTimeouts` are a separate layer.
 */
export function withRequestTimeout(
  streamFn: StreamFn,
  timeoutMs: number = TURN_DEFAULTS.llmRequestTimeoutMs,
): StreamFn {
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) return streamFn;
  return filling(streamFn, (options) => fillRequestTimeout(options, timeoutMs));
}

/** One layer: each request goes to `streamFn` with a copy of its options that `fill` has written into. */
function filling(streamFn: StreamFn, fill: (options: StreamFnOptions, model: AnyModel) => void): StreamFn {
  return (model, context, callerOptions) => {
    const options: StreamFnOptions = { ...callerOptions };
    fill(options, model);
    return streamFn(model, context, options);
  };
}

// ------------------------------------------------------------ the rules

function fillRequestTimeout(options: StreamFnOptions, timeoutMs: number): void {
  if (options.timeoutMs === undefined) options.timeoutMs = timeoutMs;
}

function fillFetch(options: StreamFnOptions, fetch: typeof globalThis.fetch): void {
  const request = options as StreamFnOptionsWithFetch;
  if (request.fetch === undefined) request.fetch = fetch;
}

function fillHeaders(options: StreamFnOptions, headers: Record<string, string>): void {
  options.headers = mergeHeaders(headers, options.headers);
}

function fillMaxTokens(options: StreamFnOptions, maxTokens: number): void {
  if (!isTokenCount(options.maxTokens)) options.maxTokens = maxTokens;
}

function fillCacheRetention(options: StreamFnOptions, cacheRetention: CacheRetention): void {
  if (options.cacheRetention === undefined) options.cacheRetention = cacheRetention;
}

function fillHostCap(options: StreamFnOptions, cap: number, model: AnyModel): void {
  const limits = [cap, options.maxTokens, model.maxTokens].filter(isTokenCount);
  options.maxTokens = Math.min(...limits);
}

/** A `maxTokens` above the model's own limit (when it states one) is lowered to it: the provider would refuse it. */
function keepToModelLimit(options: StreamFnOptions, model: AnyModel): void {
  const limit = model.maxTokens;
  if (isTokenCount(options.maxTokens) && isTokenCount(limit) && options.maxTokens > limit) options.maxTokens = limit;
}

/** True for a positive safe integer: a token count a provider accepts. */
function isTokenCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0;
}

const CACHE_RETENTIONS: readonly CacheRetention[] = ["none", "short", "long"];

function assertValidCacheRetention(value: unknown): asserts value is CacheRetention {
  if (!CACHE_RETENTIONS.includes(value as CacheRetention)) {
    throw new TurnkitConfigError(
      ConfigErrorCode.InvalidTurnInput,
      `llm.cacheRetention must be one of ${CACHE_RETENTIONS.join(", ")}, got ${describeValue(value)}`,
    );
  }
}

function assertValidHostCap(value: unknown): asserts value is number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
    throw new TurnkitConfigError(
      ConfigErrorCode.InvalidHostCap,
      `llm.hostMaxOutputTokens must be a positive integer, got ${describeValue(value)}`,
    );
  }
}
