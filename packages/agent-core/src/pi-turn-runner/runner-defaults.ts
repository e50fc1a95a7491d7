import { randomUUID } from "node:crypto";
import type { BashEnvSpawnHookOptions } from "../bash-env.js";
import { type Clock, type RandomSource, systemClock } from "../clock.js";
import type { MessageIdAllocator } from "../event-bridge/event-bridge.js";
import type { TurnTelemetryOptions } from "../turn-watch/turn-tracing.js";
import type { PiTurnRunnerOptions, TurnMetricsSink } from "./runner-options.js";
import { type GuardedLogger, guardLogger } from "./guarded-logger.js";

/** A runner's options with every default filled in; shared read-only by its turns. Internal. */
export interface RunnerDefaults {
  allocateMessageId: MessageIdAllocator;
  /** Returns a new id for each runtime event; ids are unique per runner. */
  newEventId: () => string;
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

/**
 * Event ids unique across runners and processes without a random UUID per
 * event (which cost ~15% of a streamed turn): one random prefix per runner
 * and a counter.
 */
function sequentialEventIds(): () => string {
  const prefix = `evt_${randomUUID()}_`;
  let next = 0;
  return () => prefix + (++next).toString(36);
}

/**
 * A default message id, `msg_<uuid>`, as one flat string: `randomUUID()`
 * builds its text from a dozen joined pieces, which a string joined from
 * it keeps (about 400 bytes) for as long as the message lives, in every
 * turn running at once. `toLowerCase` changes none of its characters and
 * answers the joined text as one string.
 */
function newMessageId(): string {
  return `msg_${randomUUID()}`.toLowerCase();
}

/** Fills in the defaults of a runner's options, once per runner. */
export function resolveRunnerDefaults(options: PiTurnRunnerOptions): RunnerDefaults {
  const clock = options.clock ?? systemClock;
  return {
    allocateMessageId: options.allocateMessageId ?? newMessageId,
    newEventId: options.newEventId ?? sequentialEventIds(),
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
