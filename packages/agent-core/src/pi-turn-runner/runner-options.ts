import type { BashEnvSpawnHookOptions } from "../bash-env.js";
import type { Clock, RandomSource } from "../clock.js";
import type { MessageIdAllocator } from "../event-bridge/event-bridge.js";
import { ConfigErrorCode, TurnkitConfigError } from "../errors.js";
import { isRecord } from "@turnkit/agent-loop/internal";
import { describeValue } from "../messages/content-checks.js";
import type { TurnTelemetryOptions } from "../turn-watch/turn-tracing.js";
import { type FieldRule, checkFields } from "./field-rules.js";

/** Where the runner reports what it did; every method optional, failures ignored. */
export interface TurnLogger {
  /** Detail for debugging; never called per streamed delta. */
  debug?(message: string, attrs?: Record<string, unknown>): void;
  /** Something went wrong but the turn goes on. */
  warn?(message: string, attrs?: Record<string, unknown>): void;
  /** The turn failed; `attrs.code` is its error code. */
  error?(message: string, attrs?: Record<string, unknown>): void;
}

/** Receives per-turn measurements (`turn.duration_ms`, `llm.requests`, ...). Failures ignored. */
export type TurnMetricsSink = (metric: { name: string; value: number; attrs: Record<string, string> }) => void;

/**
 * Process-wide defaults of a `PiTurnRunner`. Everything turn-specific comes
 * with each `RunTurnInput`.
 */
export interface PiTurnRunnerOptions {
  /**
   * Names assistant messages: a non-empty string, or a promise of one,
   * never the id of an earlier message of the same turn. Default:
   * `msg_<uuid>`. A throw, a rejection or any other answer fails the turn
   * (`internal`, naming the callback).
   */
  allocateMessageId?: MessageIdAllocator;
  /**
   * Names runtime events: a non-empty string, synchronously. Default:
   * `evt_<uuid of this runner>_<counter>`, unique per runner. A throw or any
   * other answer fails the turn (`internal`, naming the callback); the
   * runner's own ids then name the rest of its events. So does an answer
   * repeating the id of an earlier event of the same turn (a store that
   * keeps events by id would keep one of the two): to tell, the runner
   * remembers each id of a turn until the turn ends, one set entry per
   * event (its own default ids are never checked: they cannot repeat).
   */
  newEventId?: () => string;
  /** Time for backoff, timeouts and tool durations. Default: the system clock. */
  clock?: Clock;
  /** Jitter source for retry backoff. Default: `Math.random`. */
  random?: RandomSource;
  /** Where the runner reports retries, timeouts, abandoned hooks and failures. A logger that throws never changes a turn. Default: silent. */
  logger?: TurnLogger;
  /** Receives per-turn measurements. A sink that throws never changes a turn. Default: none. */
  metrics?: TurnMetricsSink;
  /** Default workspace of the built-in tools. Default: `process.cwd()`. */
  workspaceDir?: string;
  /** Environment sanitising of the built-in `bash` tool. */
  bashEnv?: BashEnvSpawnHookOptions;
  /** OpenTelemetry spans of every turn: the tracer (default: the global one, a no-op without an SDK) and whether to record prompt and completion text (default not). */
  telemetry?: TurnTelemetryOptions;
}

const RUNNER_OPTIONS: Record<keyof PiTurnRunnerOptions, FieldRule> = {
  allocateMessageId: "function",
  newEventId: "function",
  clock: "clock",
  random: "function",
  logger: "object",
  metrics: "function",
  workspaceDir: "string",
  bashEnv: "object",
  telemetry: "object",
};

/**
 * Throws a `TurnkitConfigError` naming the field for options a runner
 * cannot use: `unknown_key` for a key it would ignore (with the nearest
 * valid key), `invalid_runner_options` for a value of the wrong type or a
 * `clock` whose `now()` answers no finite number (asked once, here).
 */
export function assertRunnerOptionsShape(options: PiTurnRunnerOptions): void {
  if (!isRecord(options as unknown))
    throw new TurnkitConfigError(
      ConfigErrorCode.InvalidRunnerOptions,
      `PiTurnRunnerOptions must be an object, got ${describeValue(options)}`,
    );
  checkFields(options, RUNNER_OPTIONS, "PiTurnRunnerOptions", ConfigErrorCode.InvalidRunnerOptions);
  if (options.clock) {
    // Asked once: a clock that answers no number would put NaN into every duration and timer of every turn.
    const now: unknown = options.clock.now();
    if (typeof now !== "number" || !Number.isFinite(now))
      throw new TurnkitConfigError(
        ConfigErrorCode.InvalidRunnerOptions,
        `PiTurnRunnerOptions.clock.now() must return a finite number of milliseconds, got ${describeValue(now)}`,
      );
  }
}
