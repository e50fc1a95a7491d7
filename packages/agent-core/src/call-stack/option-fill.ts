import { LLM_REQUEST_TIMEOUT_MS } from "../defaults.js";
import type { LlmConfig } from "./llm-config.js";
import type { AnyModel, StreamFnOptions } from "./stream-fn.js";
import { assertValidCacheRetention } from "./stream-wrappers/with-cache-retention.js";
import type { StreamFnOptionsWithFetch } from "./stream-wrappers/with-fetch.js";
import { assertValidHostCap, cappedMaxTokens } from "./stream-wrappers/with-host-max-output-tokens.js";
import { isPositive } from "./stream-wrappers/with-max-tokens.js";

/** Fills a request's options in place, as the option layers would in their copies. */
export type OptionFill = (options: StreamFnOptions, model: AnyModel) => void;

/**
 * The six option layers of `composeStreamFn` as one function that writes
 * into options the caller owns (a copy made for this one attempt) instead
 * of each layer copying them: in the same order (request timeout, fetch,
 * headers, `maxTokens`, cache retention, the host cap last) and with the
 * same rules, so the provider receives the same options. Throws the same
 * `TurnkitConfigError`s as `composeStreamFn`, at once.
 */
export function optionFill(llm: Omit<LlmConfig, "streamFn" | "model">): OptionFill {
  const { hostMaxOutputTokens: cap, cacheRetention, maxTokens, headers, fetch } = llm;
  if (cap !== undefined) assertValidHostCap(cap);
  if (cacheRetention !== undefined) assertValidCacheRetention(cacheRetention);
  const fixedHeaders = headers !== undefined && Object.keys(headers).length > 0 ? { ...headers } : undefined;
  const timeoutMs = LLM_REQUEST_TIMEOUT_MS;
  return (options, model) => {
    const request = options as StreamFnOptionsWithFetch;
    if (request.timeoutMs === undefined) request.timeoutMs = timeoutMs;
    if (fetch !== undefined && request.fetch === undefined) request.fetch = fetch;
    if (fixedHeaders) request.headers = { ...fixedHeaders, ...request.headers };
    if (isPositive(maxTokens) && !isPositive(request.maxTokens)) request.maxTokens = maxTokens;
    if (cacheRetention !== undefined && request.cacheRetention === undefined) request.cacheRetention = cacheRetention;
    if (cap !== undefined) request.maxTokens = cappedMaxTokens(cap, request.maxTokens, model.maxTokens);
  };
}
