import type { ContenderId } from "./contenders.js";

/** How many untimed and timed runs each contender gets. */
export interface RoundPlan {
  warmup: number;
  rounds: number;
}

/**
 * A timed workload: each contender gets untimed verification, warm-up
 * runs, then alternating timed rounds (see `timeAlternating`).
 */
export interface TimedWorkload {
  /** Table key, e.g. `W1` or `W2-1200`. */
  id: string;
  /** One line for the table legend and the README. */
  description: string;
  contenders: readonly ContenderId[];
  /** Rounds that keep the whole suite under two minutes on two cores. */
  plan: RoundPlan;
  /** Builds the scripted responses before any run, so no run pays for them. */
  prepare?(): void;
  /** One untimed run that throws when the contender did not do the whole workload. */
  verify(contender: ContenderId): Promise<void>;
  /** One run, as timed. */
  run(contender: ContenderId): Promise<unknown>;
  /** Table key of a contender's row; the floor of W1 is reported as W0. */
  rowId?(contender: ContenderId): string;
}
