import { LLM_REQUEST_TIMEOUT_MS } from "../defaults.js";
import type { LlmConfig } from "./llm-config.js";
import type { AnyModel, StreamFnOptions } from "./stream-fn.js";
import { assertValidCacheRetention, fillCacheRetention } from "./stream-wrappers/with-cache-retention.js";
import { fillFetch } from "./stream-wrappers/with-fetch.js";
import { fillHeaders } from "./stream-wrappers/with-headers.js";
import { assertValidHostCap, fillHostCap } from "./stream-wrappers/with-host-max-output-tokens.js";
import { fillMaxTokens, isPositive } from "./stream-wrappers/with-max-tokens.js";
import { fillRequestTimeout } from "./stream-wrappers/with-request-timeout.js";

/** Fills a request's options in place, as the option layers would in their copies. */
export type OptionFill = (options: StreamFnOptions, model: AnyModel) => void;

/**
 * The six option layers of `composeStreamFn` as one function that writes
 * into options the caller owns (a copy made for this one attempt) instead
 * of each layer copying them: each layer's own fill rule (`fillFetch`,
 * `fillHeaders`...), in the same order (request timeout, fetch,
 * headers, `maxTokens`, cache retention, the host cap last) and with the
 * same rules, so the provider receives the same options. Throws the same
 * `TurnkitConfigError`s as `composeStreamFn`, at once.
 */
export function optionFill(llm: Omit<LlmConfig, "streamFn" | "model">): OptionFill {
  const { hostMaxOutputTokens: cap, cacheRetention, maxTokens, headers, fetch } = llm;
  if (cap !== undefined) assertValidHostCap(cap);
  if (cacheRetention !== undefined) assertValidCacheRetention(cacheRetention);
  const fixedHeaders = headers !== undefined && Object.keys(headers).length > 0 ? { ...headers } : undefined;
  return (options, model) => {
    fillRequestTimeout(options, LLM_REQUEST_TIMEOUT_MS);
    if (fetch !== undefined) fillFetch(options, fetch);
    if (fixedHeaders) fillHeaders(options, fixedHeaders);
    if (isPositive(maxTokens)) fillMaxTokens(options, maxTokens);
    if (cacheRetention !== undefined) fillCacheRetention(options, cacheRetention);
    if (cap !== undefined) fillHostCap(options, cap, model);
  };
}
