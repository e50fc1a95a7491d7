import type { CacheRetention } from "@mariozechner/pi-ai";
import { ConfigErrorCode, TurnkitConfigError } from "../../errors.js";
import { fillingStreamFn, type StreamFn, type StreamFnOptions } from "../stream-fn.js";

const CACHE_RETENTIONS: readonly CacheRetention[] = ["none", "short", "long"];

/**
 * Sends `cacheRetention` with every request that does not set its own.
 * `undefined` returns `streamFn` unchanged; a value other than
 * `none`, `short` or `long` throws `TurnkitConfigError` (`invalid_turn_input`).
 */
export function withCacheRetention(streamFn: StreamFn, cacheRetention: CacheRetention | undefined): StreamFn {
  if (cacheRetention === undefined) return streamFn;
  assertValidCacheRetention(cacheRetention);
  return fillingStreamFn(streamFn, (options) => fillCacheRetention(options, cacheRetention));
}

/** The layer's rule, applied in place: `cacheRetention` unless the request sets its own. */
export function fillCacheRetention(options: StreamFnOptions, cacheRetention: CacheRetention): void {
  if (options.cacheRetention === undefined) options.cacheRetention = cacheRetention;
}

/** Throws `invalid_turn_input` unless `value` is `none`, `short` or `long`. */
export function assertValidCacheRetention(value: unknown): asserts value is CacheRetention {
  if (!CACHE_RETENTIONS.includes(value as CacheRetention)) {
    throw new TurnkitConfigError(
      ConfigErrorCode.InvalidTurnInput,
      `llm.cacheRetention must be one of ${CACHE_RETENTIONS.join(", ")}, got ${JSON.stringify(value)}`,
    );
  }
}
