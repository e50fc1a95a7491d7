import type { Context as OtelContext } from "@opentelemetry/api";
import type { SubAgentStep, TurnOutcome } from "@turnkit/protocol";
import type { RunTurnInput } from "../pi-turn-runner/run-turn-input.js";
import type { TurnWatch } from "../turn-watch/turn-watch.js";

/** Where a turn stands among sub-agents, as the turn that starts it says (see {@link TurnNesting}). */
export interface TurnPlace {
  readonly subAgentPath: readonly SubAgentStep[];
  readonly requestIdScope: string;
  readonly parentWatch?: TurnWatch;
}

/**
 * How a turn is nested among sub-agents: the sub-agent calls above it
 * (empty for a host's turn) and how it starts a child turn on the same
 * runner (the same clock, id allocators, logger and telemetry).
 */
export interface TurnNesting {
  /** From the host's turn down to this one, one step per sub-agent call. */
  readonly subAgentPath: readonly SubAgentStep[];
  /**
   * The prefix of the ids of what this turn's tools ask the host: the keys
   * (`ToolExecutionContext.callKey`) of the sub-agent calls above it, each
   * followed by `/` (`""` for a host's turn).
   */
  readonly requestIdScope: string;
  /** The trace context the turn's span goes under: a sub-agent turn's call span; absent for a host's turn. */
  readonly traceParent?: OtelContext;
  /** A sub-agent turn's: the watch of the turn whose call runs it, which counts its spending and whose limits it keeps to. */
  readonly parentWatch?: TurnWatch;
  /**
   * Runs `input` as a turn at `subAgentPath` whose tools ask under
   * `requestIdScope` (its span under `traceParent`), as `runTurn` does.
   * Rejects only for invalid input.
   */
  readonly startTurn: (
    input: RunTurnInput,
    place: TurnPlace,
    traceParent: OtelContext | undefined,
  ) => Promise<TurnOutcome>;
}
