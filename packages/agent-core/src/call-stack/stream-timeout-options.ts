import { describeValue } from "@turnkit/agent-loop/internal";
import { TURN_DEFAULTS } from "../defaults.js";
import { ConfigErrorCode, TurnkitConfigError } from "../errors.js";
import type { Clock } from "../clock.js";

/** The two per-attempt watchdog limits, resolved; `0` means off. */
export interface StreamTimeouts {
  /** Longest wait for the first event of an attempt. */
  firstEventTimeoutMs: number;
  /** Longest silence between two events of an attempt. */
  streamIdleTimeoutMs: number;
}

/** One layer's watchdog limits and the clock their timers run on, shared by all its requests. */
export interface Watchdogs extends StreamTimeouts {
  readonly clock: Clock;
}

/** The watchdogs of a layer: `timeouts` resolved by {@link resolveStreamTimeouts} (none: both off). */
export function resolveWatchdogs(
  timeouts: Pick<StreamTimeoutOptions, "firstEventTimeoutMs" | "streamIdleTimeoutMs" | "env"> | undefined,
  clock: Clock,
): Watchdogs {
  const limits = timeouts
    ? resolveStreamTimeouts(timeouts, timeouts.env)
    : { firstEventTimeoutMs: 0, streamIdleTimeoutMs: 0 };
  return { firstEventTimeoutMs: limits.firstEventTimeoutMs, streamIdleTimeoutMs: limits.streamIdleTimeoutMs, clock };
}

/** Options of {@link withStreamTimeouts}. */
export interface StreamTimeoutOptions {
  /** `llm.firstEventTimeoutMs`; wins over the environment. */
  firstEventTimeoutMs?: number;
  /** `llm.streamIdleTimeoutMs`; wins over the environment. */
  streamIdleTimeoutMs?: number;
  /** Where timers run. Default: the system clock (timers never hold the process open). */
  clock?: Clock;
  /** Where the env overrides are read. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Resolves each limit as: the input value, else the environment
 * (`TURNKIT_LLM_FIRST_EVENT_TIMEOUT_MS`, `TURNKIT_LLM_STREAM_IDLE_TIMEOUT_MS`),
 * else the default (120 s, 300 s). `0` disables a watchdog.
 *
 * An input value that is not a finite number ≥ 0 throws `TurnkitConfigError`
 * (`invalid_turn_input`). An environment value that is not a non-negative
 * integer is ignored (the default applies), so a stray variable cannot break
 * a host.
 */
export function resolveStreamTimeouts(
  input: Pick<StreamTimeoutOptions, "firstEventTimeoutMs" | "streamIdleTimeoutMs"> = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
): StreamTimeouts {
  return {
    firstEventTimeoutMs: resolveOne(
      "llm.firstEventTimeoutMs",
      input.firstEventTimeoutMs,
      env[TURN_DEFAULTS.llmFirstEventTimeoutEnv],
      TURN_DEFAULTS.llmFirstEventTimeoutMs,
    ),
    streamIdleTimeoutMs: resolveOne(
      "llm.streamIdleTimeoutMs",
      input.streamIdleTimeoutMs,
      env[TURN_DEFAULTS.llmStreamIdleTimeoutEnv],
      TURN_DEFAULTS.llmStreamIdleTimeoutMs,
    ),
  };
}

function resolveOne(name: string, input: number | undefined, envValue: string | undefined, fallback: number): number {
  if (input !== undefined) {
    if (typeof input !== "number" || !Number.isFinite(input) || input < 0) {
      throw new TurnkitConfigError(
        ConfigErrorCode.InvalidTurnInput,
        `${name} must be a finite number of milliseconds >= 0 (0 disables), got ${describeValue(input)}`,
      );
    }
    return input;
  }
  if (envValue !== undefined && /^\s*\d+\s*$/.test(envValue)) return Number(envValue);
  return fallback;
}
