import type { Context as OtelContext } from "@opentelemetry/api";
import type { TurnOutcome } from "@turnkit/protocol";
import type { TurnPlace } from "../sub-agents/turn-nesting.js";
import { subscribeAgentEvents } from "./agent-events.js";
import { wireCancellation } from "./cancellation.js";
import { finishTurn } from "./finish-turn.js";
import { installHooks } from "./install-hooks.js";
import { newAgent } from "./new-agent.js";
import { newTurn } from "./new-turn.js";
import { runAgent } from "./run-agent.js";
import type { RunTurnInput } from "./run-turn-input.js";
import { readValidRunTurnInput } from "./run-turn-input-validation.js";
import { type RunnerDefaults, resolveRunnerDefaults } from "./runner-defaults.js";
import { type PiTurnRunnerOptions, assertRunnerOptionsShape } from "./runner-options.js";
import { emitWarning } from "./turn-watching.js";

/** Where a host's turn stands: under no sub-agent call. */
const HOST_TURN_PLACE = { subAgentPath: [], requestIdScope: "" } as const;

/**
 * Turns one agent run into one runtime turn. Holds only process-wide
 * defaults; each `runTurn` builds a fresh Agent, EventBridge, event queue
 * and history cursor, so turns never share state and one runner may run
 * many turns concurrently.
 */
export class PiTurnRunner {
  private readonly defaults: RunnerDefaults;
  /** How a turn of this runner starts a sub-agent's turn on it. */
  private readonly startTurn = (
    input: RunTurnInput,
    place: TurnPlace,
    traceParent: OtelContext | undefined,
  ): Promise<TurnOutcome> => this.runNestedTurn(input, place, traceParent);

  /**
   * Throws a `TurnkitConfigError` naming the field for options it cannot
   * use: an unknown key (`unknown_key`), a value of the wrong type
   * (`invalid_runner_options`).
   */
  constructor(options: PiTurnRunnerOptions = {}) {
    assertRunnerOptionsShape(options);
    this.defaults = resolveRunnerDefaults(options);
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
   * whatever the writer, hooks, tools or provider do, it resolves.
   */
  runTurn(input: RunTurnInput): Promise<TurnOutcome> {
    return this.runNestedTurn(input, HOST_TURN_PLACE, undefined);
  }

  /**
   * `runTurn` for a turn `place.subAgentPath` deep among sub-agents (a
   * host's turn is at `[]`), its tools asking under `place.requestIdScope`,
   * its span under `traceParent`.
   */
  private async runNestedTurn(
    given: RunTurnInput,
    place: TurnPlace,
    traceParent: OtelContext | undefined,
  ): Promise<TurnOutcome> {
    // The input read once and checked: the turn never reads the host's object again.
    const input = readValidRunTurnInput(given);
    // Step 1: the turn's state: event queue, EventBridge, tool table, call stack.
    const created = newTurn(input, this.defaults, {
      subAgentPath: place.subAgentPath,
      requestIdScope: place.requestIdScope,
      traceParent,
      ...(place.parentWatch && { parentWatch: place.parentWatch }),
      startTurn: this.startTurn,
    });
    // Step 2: the first session.status, `running`, then the warnings found while the turn was prepared.
    created.events.push("session.status", { status: "running" });
    for (const warning of input.warnings ?? []) emitWarning(created, warning);
    // Step 3: the Agent with system prompt, model, tools and history; the history cursor.
    const turn = newAgent(created);
    // Step 4: the LLM and tool hooks, and the stop checks.
    installHooks(turn);
    // Step 5: every Agent event goes through one serial path.
    const unsubscribe = subscribeAgentEvents(turn);
    // Step 6: the caller's abort becomes agent.abort().
    const unwireCancellation = wireCancellation(turn);
    try {
      // Step 7: prompt or continue, wait until idle, run steering that arrived until the turn closes.
      await runAgent(turn);
    } finally {
      unwireCancellation();
      unsubscribe();
    }
    // Step 8: deliver remaining history, flush, the terminal session.status, drain.
    return finishTurn(turn);
  }
}
