import { randomUUID } from "node:crypto";
import type { TurnOutcome } from "@turnkit/protocol";
import type { BashEnvSpawnHookOptions } from "../bash-env.js";
import { type Clock, type RandomSource, systemClock } from "../clock.js";
import type { MessageIdAllocator } from "../event-bridge/event-bridge.js";
import { type RunTurnInput, assertValidRunTurnInput } from "./run-turn-input.js";
import { TurnExecution } from "./turn-execution.js";

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
 * Process-wide defaults of a {@link PiTurnRunner} (SPEC T2). Everything
 * turn-specific comes with each `RunTurnInput`.
 */
export interface PiTurnRunnerOptions {
  /** Names assistant messages (B3). Default: `msg_<uuid>`. */
  allocateMessageId?: MessageIdAllocator;
  /** Names runtime events. Default: `evt_<uuid of this runner>_<counter>`, unique per runner. */
  newEventId?: () => string;
  /** Time for backoff, timeouts and tool durations. Default: the system clock. */
  clock?: Clock;
  /** Jitter source for retry backoff. Default: `Math.random`. */
  random?: RandomSource;
  logger?: TurnLogger;
  metrics?: TurnMetricsSink;
  /** Default workspace of the built-in tools. Default: `process.cwd()`. */
  workspaceDir?: string;
  /** Environment sanitising of the built-in `bash` tool (SPEC E). */
  bashEnv?: BashEnvSpawnHookOptions;
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

/** The runner's resolved defaults, shared read-only by its turns. */
export interface RunnerDefaults {
  allocateMessageId: MessageIdAllocator;
  /** Returns a new id for each runtime event; ids are unique per runner. */
  newEventId: () => string;
  clock: Clock;
  random: RandomSource;
  logger: TurnLogger;
  metrics: TurnMetricsSink | undefined;
  workspaceDir: string | undefined;
  bashEnv: BashEnvSpawnHookOptions | undefined;
}

/**
 * Turns one agent run into one runtime turn (SPEC T2). Holds only
 * process-wide defaults; each `runTurn` builds a fresh Agent, EventBridge,
 * event queue and history cursor, so turns never share state and one runner
 * may run many turns concurrently.
 */
export class PiTurnRunner {
  private readonly defaults: RunnerDefaults;

  constructor(options: PiTurnRunnerOptions = {}) {
    this.defaults = {
      allocateMessageId: options.allocateMessageId ?? (() => `msg_${randomUUID()}`),
      newEventId: options.newEventId ?? sequentialEventIds(),
      clock: options.clock ?? systemClock,
      random: options.random ?? Math.random,
      logger: options.logger ?? {},
      metrics: options.metrics,
      workspaceDir: options.workspaceDir,
      bashEnv: options.bashEnv,
    };
  }

  /**
   * Runs one turn: every `RuntimeEvent` goes to `input.eventWriter` in `seq`
   * order, ending with exactly one terminal `session.status`; new history
   * goes to `onHistoryChangedHook`; the promise resolves to exactly one
   * outcome.
   *
   * Rejects only for invalid input (a `TurnkitConfigError`: missing model or
   * message, a writer without `push`, duplicate or malformed tools, a bad
   * host cap), before any event is emitted. Otherwise it never rejects:
   * whatever the writer, hooks, tools or provider do, it resolves (X3).
   */
  async runTurn(input: RunTurnInput): Promise<TurnOutcome> {
    assertValidRunTurnInput(input);
    const turn = new TurnExecution(input, this.defaults);
    return turn.run();
  }
}
