import type { ProtocolUsage } from "./content-blocks.js";

/**
 * Tokens and cost of a turn so far, summed over every provider request it
 * sent: the agent loop's own requests (`main`) apart from the requests hooks
 * made for themselves (`auxiliary`: a compaction summary, a classifier) and
 * from what its sub-agents spent (`subAgents`).
 *
 * Every attempt counts, also one that failed before any output, when the
 * provider reported usage for it: a retried request is paid for twice.
 * Synthetic responses (a hook's `respond` or `skip`) cost nothing. Costs are
 * in the currency of the model's price table (pi-ai: US dollars), as the
 * provider's usage reports them.
 */
export interface TurnUsage {
  /** The agent loop's requests, every attempt included. */
  main: ProtocolUsage;
  /** Requests hooks made through their auxiliary stream function. */
  auxiliary: ProtocolUsage;
  /**
   * Everything the turn's sub-agent calls spent (each one's `total`), once
   * one has ended; absent when the turn ran none.
   */
  subAgents?: ProtocolUsage;
  /** `main`, `auxiliary` and `subAgents` added up. */
  total: ProtocolUsage;
  /** How many provider attempts were sent, per family (a retry is one more). */
  attempts: { main: number; auxiliary: number };
}
