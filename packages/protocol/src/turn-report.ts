import type { TurnTiming } from "./turn-timing.js";
import type { TurnUsage } from "./turn-usage.js";

/**
 * What a turn reports about itself besides how it ended, on its terminal
 * `session.status` and in its `TurnOutcome`. `PiTurnRunner` sets both
 * fields for every outcome kind (an aborted or failed turn still cost
 * money); a `running` status never has them.
 */
export interface TurnReport {
  /** Tokens and cost of every request of the turn. */
  usage?: TurnUsage;
  /** Wall time, and where the time of each request and tool call went. */
  timing?: TurnTiming;
}
