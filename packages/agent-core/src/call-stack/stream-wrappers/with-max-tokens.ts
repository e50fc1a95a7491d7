import { fillingStreamFn, type StreamFn, type StreamFnOptions } from "../stream-fn.js";

/**
 * Sends `maxTokens` with every request that does not ask for a positive
 * number itself. Only a positive finite value has an effect;
 * anything else returns `streamFn` unchanged (the provider's default applies).
 */
export function withMaxTokens(streamFn: StreamFn, maxTokens: number | undefined): StreamFn {
  if (!isPositive(maxTokens)) return streamFn;
  return fillingStreamFn(streamFn, (options) => fillMaxTokens(options, maxTokens));
}

/** The layer's rule, applied in place: `maxTokens` unless the request asks for a positive number itself. */
export function fillMaxTokens(options: StreamFnOptions, maxTokens: number): void {
  if (!isPositive(options.maxTokens)) options.maxTokens = maxTokens;
}

/** True for a positive finite number: a `maxTokens` that has an effect. */
export function isPositive(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value > 0;
}
