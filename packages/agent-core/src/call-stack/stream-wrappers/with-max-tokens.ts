import type { StreamFn } from "../stream-fn.js";

/**
 * Sends `maxTokens` with every request that does not ask for a positive
 * number itself. Only a positive finite value has an effect;
 * anything else returns `streamFn` unchanged (the provider's default applies).
 */
export function withMaxTokens(streamFn: StreamFn, maxTokens: number | undefined): StreamFn {
  if (!isPositive(maxTokens)) return streamFn;
  return (model, context, options) =>
    isPositive(options?.maxTokens)
      ? streamFn(model, context, options)
      : streamFn(model, context, { ...options, maxTokens });
}

/** True for a positive finite number: a `maxTokens` that has an effect. */
export function isPositive(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value > 0;
}
