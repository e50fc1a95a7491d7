import { LLM_REQUEST_TIMEOUT_MS } from "../../defaults.js";
import { fillingStreamFn, type StreamFn, type StreamFnOptions } from "../stream-fn.js";

/**
 * Sends `timeoutMs` (default 20 min) with every request that does not set its
 * own (outermost wrapper). SDK-backed providers use it as their
 * request timeout. `0` returns `streamFn` unchanged (the provider's own
 * default applies). The per-attempt watchdogs of `withStreamTimeouts` are a
 * separate, provider-independent layer.
 */
export function withRequestTimeout(streamFn: StreamFn, timeoutMs: number = LLM_REQUEST_TIMEOUT_MS): StreamFn {
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) return streamFn;
  return fillingStreamFn(streamFn, (options) => fillRequestTimeout(options, timeoutMs));
}

/** The layer's rule, applied in place: `timeoutMs` unless the request sets its own. */
export function fillRequestTimeout(options: StreamFnOptions, timeoutMs: number): void {
  if (options.timeoutMs === undefined) options.timeoutMs = timeoutMs;
}
