import type { ProtocolUsage } from "./content-blocks.js";
import type { ModelRequestTiming } from "./turn-timing.js";
import type { TurnUsage } from "./turn-usage.js";

/**
 * What one step of the agent loop (one model request and the tool calls it
 * asked for) cost, carried by the `finish` chunk that closes the step's
 * message, with the turn's running totals, so a host can show (or stop on)
 * them while the turn goes on.
 */
export interface StepReport {
  /** 0-based index of the step within the turn. */
  stepIndex: number;
  /** Usage of this step's request, every attempt included. */
  usage: ProtocolUsage;
  /** Timing of this step's request; absent for a synthetic response. */
  timing?: ModelRequestTiming;
  /** The turn's totals so far, this step included. */
  turnUsage: TurnUsage;
}
