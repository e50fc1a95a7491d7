import { streamSimple } from "@mariozechner/pi-ai";
import type { LlmConfig } from "./llm-config.js";
import { invokeStreamFn, type StreamFn } from "./stream-fn.js";
import { withCacheRetention } from "./stream-wrappers/with-cache-retention.js";
import { withFetch } from "./stream-wrappers/with-fetch.js";
import { withHeaders } from "./stream-wrappers/with-headers.js";
import { withHostMaxOutputTokens } from "./stream-wrappers/with-host-max-output-tokens.js";
import { withMaxTokens } from "./stream-wrappers/with-max-tokens.js";
import { withRequestTimeout } from "./stream-wrappers/with-request-timeout.js";

/**
 * Builds the stream function of a turn from its `llm` config:
 * `llm.streamFn` (default pi-ai `streamSimple`) wrapped, innermost first, by
 *
 * 1. {@link withHostMaxOutputTokens} — the host's output ceiling,
 * 2. {@link withCacheRetention},
 * 3. {@link withMaxTokens},
 * 4. {@link withHeaders},
 * 5. {@link withFetch},
 * 6. {@link withRequestTimeout} — outermost, 20 min by default.
 *
 * Each wrapper fills only its own option, and only when the request does not
 * set it (the host cap is a ceiling, so it always applies).
 *
 * Throws `TurnkitConfigError` at once for an invalid `hostMaxOutputTokens`
 * (`invalid_host_cap`) or `cacheRetention` (`invalid_turn_input`). The
 * returned function never throws or rejects: a failure of the wrapped function
 * becomes a terminal `error` event.
 *
 * Timeouts, retry and overflow recovery are separate layers, applied around
 * this function in that order (`withStreamTimeouts`, `withLlmRetry`,
 * `withOverflowRecovery`). Each writes into a `RelayStream` that the layer
 * above reads synchronously, so a streamed event crosses them in one hop.
 */
export function composeStreamFn(llm: LlmConfig): StreamFn {
  const composed = composeOptionLayers(llm.streamFn ?? streamSimple, llm);
  return (model, context, options) => invokeStreamFn(composed, model, context, options);
}

/**
 * The six option wrappers of {@link composeStreamFn} around `streamFn`
 * (instead of `llm.streamFn`), without its guard: the returned function
 * may throw or reject as `streamFn` does, so call it through
 * `invokeStreamFn` (every call-stack layer does). For a caller that already
 * guards each call and has its own innermost stream function. Throws the
 * same `TurnkitConfigError`s at once.
 */
export function composeOptionLayers(streamFn: StreamFn, llm: Omit<LlmConfig, "streamFn" | "model">): StreamFn {
  let composed = withHostMaxOutputTokens(streamFn, llm.hostMaxOutputTokens);
  composed = withCacheRetention(composed, llm.cacheRetention);
  composed = withMaxTokens(composed, llm.maxTokens);
  composed = withHeaders(composed, llm.headers);
  composed = withFetch(composed, llm.fetch);
  return withRequestTimeout(composed);
}
