import type { AgentEvent, StreamFn } from "@turnkit/agent-loop";
import { ErrorCode, type RuntimeWarningPayload, type StepReport, type TurnOutcome } from "@turnkit/protocol";
import type { LlmRetryNotification } from "../call-stack/llm-config.js";
import { budgetExceededMessage } from "../turn-watch/turn-budget.js";
import { TurnWatch, type WarningSink } from "../turn-watch/turn-watch.js";
import type { RequestFamily } from "../turn-watch/usage-ledger.js";
import type { RunTurnInput } from "./run-turn-input.js";
import type { RunnerDefaults } from "./runner-defaults.js";
import { failTurn } from "./turn-failure.js";
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
  });
}

/** Emits a `runtime.warning` in order with the turn's other events; nothing once the turn settled. */
export function emitWarning(turn: TurnState, warning: RuntimeWarningPayload): void {
  if (!turn.settled) turn.events.push("runtime.warning", warning);
}

/**
 * The call stack of `family` with every request and every provider attempt
 * watched. The turn's watch is read only once a request runs (the stack is
 * built before the watch, so a bad config throws before any span starts).
 */
export function watchedCallStack(
  turn: TurnState,
  family: RequestFamily,
  wrapAttempt: (attempt: StreamFn) => StreamFn,
  attempt: StreamFn,
): StreamFn {
  const retried = wrapAttempt((model, context, options) =>
    turn.watch.attempt(family, attempt, model, context, options),
  );
  return (model, context, options) => {
    turn.watch.requestStarted(family, model, context);
    return retried(model, context, options);
  };
}

/** A transport retry notice: backoff, a `runtime.warning` for a wait. */
export function watchRetryNotice(turn: TurnState, notice: LlmRetryNotification): void {
  if (!turn.settled) turn.watch.retryNotice(notice);
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
 * Before a new request of the loop: when a budget limit is reached, fails
 * the turn with `budget_exceeded` and answers true; the caller then sends
 * nothing (the request is skipped, its response dropped).
 */
export function stopIfOverBudget(turn: TurnState): boolean {
  const detail = turn.watch.budgetReached();
  if (!detail) return false;
  failTurn(turn, { code: ErrorCode.BudgetExceeded, message: budgetExceededMessage(detail), budget: detail });
  return true;
}

/**
 * The outcome with the turn's `usage` and `timing`; ends the turn's spans.
 * Called once, by step 8. Both are non-enumerable on the outcome: a host
 * reads `outcome.usage`, while comparing or serialising an outcome sees the
 * same fields as before (the terminal `session.status`, built from it by
 * `outcomeToStatus`, carries them as plain fields).
 */
export function reportOutcome(turn: TurnState, outcome: TurnOutcome): TurnOutcome {
  const { usage, timing } = turn.watch.finish(outcome);
  // Copied with Object.assign, not spread: V8 gives each spread copy that then gains properties a hidden class of its own
  // (about 170 bytes kept with every outcome), while assigned copies share one.
  return Object.defineProperties(Object.assign({}, outcome), {
    usage: { value: usage, enumerable: false, writable: true, configurable: true },
    timing: { value: timing, enumerable: false, writable: true, configurable: true },
  });
}
