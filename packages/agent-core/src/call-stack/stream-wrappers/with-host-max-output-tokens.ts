import { ConfigErrorCode, TurnkitConfigError } from "../../errors.js";
import { fillingStreamFn, type AnyModel, type StreamFn, type StreamFnOptions } from "../stream-fn.js";

/**
 * Caps output tokens at the host's ceiling (innermost wrapper):
 * every request is sent with the smallest positive of `hostMaxOutputTokens`,
 * the request's `maxTokens` and `model.maxTokens`. A request that asks for
 * less than the cap keeps its value.
 *
 * `undefined` returns `streamFn` unchanged. Anything but a positive integer
 * number throws `TurnkitConfigError` (`invalid_host_cap`) here, when the turn
 * is assembled, so no request is ever sent with a bad cap.
 */
export function withHostMaxOutputTokens(streamFn: StreamFn, hostMaxOutputTokens: number | undefined): StreamFn {
  if (hostMaxOutputTokens === undefined) return streamFn;
  assertValidHostCap(hostMaxOutputTokens);
  const cap = hostMaxOutputTokens;
  return fillingStreamFn(streamFn, (options, model) => fillHostCap(options, cap, model));
}

/** The layer's rule, applied in place: `maxTokens` becomes the smallest positive of the cap, the request's and the model's. */
export function fillHostCap(options: StreamFnOptions, cap: number, model: AnyModel): void {
  options.maxTokens = cappedMaxTokens(cap, options.maxTokens, model.maxTokens);
}

/** The smallest positive finite number of the host cap, the request's `maxTokens` and the model's. */
export function cappedMaxTokens(cap: number, requested: number | undefined, modelMax: number | undefined): number {
  return Math.min(
    ...[cap, requested, modelMax].filter(
      (value): value is number => typeof value === "number" && Number.isFinite(value) && value > 0,
    ),
  );
}

/** Throws `invalid_host_cap` unless `value` is a positive integer number. */
export function assertValidHostCap(value: unknown): asserts value is number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
    throw new TurnkitConfigError(
      ConfigErrorCode.InvalidHostCap,
      `llm.hostMaxOutputTokens must be a positive integer, got ${describe(value)}`,
    );
  }
}

function describe(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}
