import { sequentialEventIds } from "../event-bridge/serial-event-queue.js";
import type { BashEnvSpawnHookOptions } from "../bash-env.js";
import { type Clock, type RandomSource, systemClock } from "../clock.js";
import type { MessageIdAllocator } from "../event-bridge/event-bridge.js";
import type { TurnTelemetryOptions } from "../turn-watch/turn-tracing.js";
import type { PiTurnRunnerOptions, TurnMetricsSink } from "./runner-options.js";
import { type GuardedLogger, guardLogger } from "./guarded-logger.js";
import { newMessageId } from "./message-ids.js";

/** A runner's options with every default filled in; shared read-only by its turns. Internal. */
export interface RunnerDefaults {
  allocateMessageId: MessageIdAllocator;
  /** Returns a new id for each runtime event: the host's `newEventId`, or ids unique per runner. */
  newEventId: () => string;
  /** Whether `newEventId` is the host's: its answers are checked for repeats within a turn. */
  hostEventIds: boolean;
  clock: Clock;
  /** `clock.now`, as one function every turn shares. */
  now: () => number;
  random: RandomSource;
  /** The host's logger, guarded: its calls never throw. */
  logger: GuardedLogger;
  metrics: TurnMetricsSink | undefined;
  workspaceDir: string | undefined;
  bashEnv: BashEnvSpawnHookOptions | undefined;
  telemetry: TurnTelemetryOptions | undefined;
}

/** Fills in the defaults of a runner's options, once per runner. */
export function resolveRunnerDefaults(options: PiTurnRunnerOptions): RunnerDefaults {
  const clock = options.clock ?? systemClock;
  return {
    allocateMessageId: options.allocateMessageId ?? newMessageId,
    newEventId: options.newEventId ?? sequentialEventIds(),
    hostEventIds: options.newEventId !== undefined,
    clock,
    now: () => clock.now(),
    random: options.random ?? Math.random,
    logger: guardLogger(options.logger),
    metrics: options.metrics,
    workspaceDir: options.workspaceDir,
    bashEnv: options.bashEnv,
    telemetry: options.telemetry,
  };
}
