import { describeValue } from "@turnkit/agent-loop/internal";
import type { RandomSource } from "../clock.js";
import { TURN_DEFAULTS } from "../defaults.js";
import { ConfigErrorCode, TurnkitConfigError } from "../errors.js";
import type { LlmRetryOptions } from "./llm-config.js";

/** The retry limits with every default filled in. */
export interface LlmRetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff before jitter. */
  baseDelayMs: number;
  /** Cap of each single wait. */
  maxDelayMs: number;
  /** No wait may end later than this after the first failure. */
  maxRetryElapsedMs: number;
}

/**
 * Fills the defaults of `defaults.ts` into `options`. Throws
 * `TurnkitConfigError` (`invalid_turn_input`) for a `maxRetries` that is not a
 * non-negative integer or a delay that is not a finite number ≥ 0.
 */
export function resolveLlmRetryPolicy(options: LlmRetryOptions = {}): LlmRetryPolicy {
  const policy: LlmRetryPolicy = {
    maxRetries: options.maxRetries ?? TURN_DEFAULTS.llmRetryMaxRetries,
    baseDelayMs: options.baseDelayMs ?? TURN_DEFAULTS.llmRetryBaseDelayMs,
    maxDelayMs: options.maxDelayMs ?? TURN_DEFAULTS.llmRetryMaxDelayMs,
    maxRetryElapsedMs: options.maxRetryElapsedMs ?? TURN_DEFAULTS.llmRetryMaxElapsedMs,
  };
  if (!Number.isSafeInteger(policy.maxRetries) || policy.maxRetries < 0) {
    throw invalid("llmRetry.maxRetries must be a non-negative integer", policy.maxRetries);
  }
  for (const key of ["baseDelayMs", "maxDelayMs", "maxRetryElapsedMs"] as const) {
    const value = policy[key];
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw invalid(`llmRetry.${key} must be a finite number of milliseconds >= 0`, value);
    }
  }
  return policy;
}

/**
 * The wait before retry number `retry` (1 for the first retry): the
 * provider's `retryAfterMs` when known, else `baseDelayMs · 2^(retry-1)` with
 * equal jitter (half fixed, half random); either way at most `maxDelayMs`.
 */
export function computeRetryDelayMs(params: {
  retry: number;
  policy: LlmRetryPolicy;
  random: RandomSource;
  retryAfterMs?: number;
}): number {
  const { retry, policy, random, retryAfterMs } = params;
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, retryAfterMs), policy.maxDelayMs);
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  const jitter = Math.min(Math.max(random(), 0), 1);
  return Math.round(exponential / 2 + (jitter * exponential) / 2);
}

function invalid(message: string, value: unknown): TurnkitConfigError {
  return new TurnkitConfigError(ConfigErrorCode.InvalidTurnInput, `${message}, got ${describeValue(value)}`);
}
