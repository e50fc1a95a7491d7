import type { TurnError } from "./turn-error.js";
import type { TerminalTurnStatus } from "./turn-status.js";
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
  /**
   * One report per sub-agent call of the turn that ended (its usage, timing
   * and outcome), in the order they ended; absent when the turn ran no
   * sub-agent. Their usage is also in `usage.subAgents` and `usage.total`.
   */
  subAgentCalls?: SubAgentCallReport[];
}

/**
 * What one sub-agent call of a turn cost and how it ended, in its parent's
 * `TurnReport.subAgentCalls`. Its `usage` and `timing` are the sub-agent
 * turn's own report (its sub-agents' calls nested in its own
 * `subAgentCalls`); the parent's `usage.subAgents` is the sum of every call's
 * `usage.total`.
 */
export interface SubAgentCallReport extends TurnReport {
  /** The parent's tool call that ran the sub-agent. */
  toolCallId: string;
  /** The sub-agent's name. */
  agent: string;
  /** The sub-agent turn's id. */
  turnId: string;
  /** How the sub-agent turn ended. */
  outcome: TerminalTurnStatus;
  /** Why it failed, when `outcome` is `failed`. */
  error?: TurnError;
}
