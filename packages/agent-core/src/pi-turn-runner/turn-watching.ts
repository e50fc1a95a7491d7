import type { AgentEvent } from "@turnkit/agent-loop";
import { ErrorCode, type RuntimeWarningPayload, type StepReport, type TurnOutcome } from "@turnkit/protocol";
import { budgetExceededMessage, limitAboveMessage } from "../turn-watch/turn-budget.js";
import { TurnWatch, type WarningSink } from "../turn-watch/turn-watch.js";
import { failTurn } from "./turn-failure.js";
import { jsonSafe } from "../event-bridge/json-safe.js";
import type { RunningTurn, TurnState } from "./turn-state.js";

/*
 * Where the runner's seams feed the turn's watch (usage, timing, warnings,
 * budget, spans). Each function is one call from one seam; none of them
 * changes what the turn does, except the budget checks, which stop it.
 */

/** The watch of a turn (step 1), from the turn's start on; its warnings go to `warnings` (the turn, which emits them). */
export function newTurnWatch(turn: TurnState & WarningSink): TurnWatch {
  const { input, defaults } = turn;
  return new TurnWatch({
    clock: defaults.clock,
    startedAt: turn.startedAt,
    sessionId: input.sessionId,
    turnId: input.turnId,
    model: input.llm.model,
    systemPrompt: input.systemPrompt,
    budget: input.budget,
    telemetry: defaults.telemetry,
    warnings: turn,
    ...(turn.nesting.traceParent && { traceParent: turn.nesting.traceParent }),
    ...(turn.nesting.parentWatch && { parent: turn.nesting.parentWatch }),
  });
}

/** Emits a `runtime.warning` in order with the turn's other events, as plain JSON (a host's warning may hold anything besides its fields); nothing once the turn settled. */
export function emitWarning(turn: TurnState, warning: RuntimeWarningPayload): void {
  if (!turn.settled) turn.events.push("runtime.warning", jsonSafe(warning) as RuntimeWarningPayload);
}

/** The report of the step a `finish` chunk being made closes (once per step), for that chunk. */
export function takeStepReport(turn: TurnState): StepReport | undefined {
  return turn.watch.takeStepReport();
}

/**
 * One loop event, before the runner handles it. At a step's end, when the
 * loop would send another request (tool results to answer, queued
 * messages) and a budget limit is reached, the turn fails with
 * `budget_exceeded` and stops after this step.
 */
export function watchAgentEvent(turn: RunningTurn, event: AgentEvent): void {
  turn.watch.onAgentEvent(event);
  if (event.type !== "turn_end" || turn.stopRequested) return;
  if (event.toolResults.length === 0 && !turn.agent.hasQueuedMessages()) return;
  stopIfOverBudget(turn);
}

/**
 * Before a new request of the loop: when a limit of the turn's budget is
 * reached, or (for a sub-agent turn) an output-token or cost limit of a
 * turn above it, fails the turn with `budget_exceeded` naming that limit
 * and answers true; the caller then sends nothing (the request is skipped,
 * its response dropped).
 */
export function stopIfOverBudget(turn: TurnState): boolean {
  const own = turn.watch.budgetReached();
  const detail = own ?? turn.watch.limitAboveReached();
  if (!detail) return false;
  const message = own ? budgetExceededMessage(own) : limitAboveMessage(detail);
  failTurn(turn, { code: ErrorCode.BudgetExceeded, message, budget: detail });
  return true;
}

/**
 * Adds the turn's `usage` and `timing` to `outcome` (a fresh object of the
 * turn's own, from `decideOutcome`) and returns it; ends the turn's spans.
 * Called once, by step 8. Both are non-enumerable on the outcome: a host
 * reads `outcome.usage`, while comparing or serialising an outcome sees the
 * same fields as before (the terminal `session.status`, built from it by
 * `outcomeToStatus`, carries them as plain fields).
 */
export function reportOutcome(turn: TurnState, outcome: TurnOutcome): TurnOutcome {
  const { usage, timing, subAgentCalls } = turn.watch.finish(outcome);
  const reported = Object.defineProperties(outcome, {
    usage: { value: usage, enumerable: false, writable: true, configurable: true },
    timing: { value: timing, enumerable: false, writable: true, configurable: true },
  });
  if (subAgentCalls)
    Object.defineProperty(reported, "subAgentCalls", {
      value: subAgentCalls,
      enumerable: false,
      writable: true,
      configurable: true,
    });
  return reported;
}
