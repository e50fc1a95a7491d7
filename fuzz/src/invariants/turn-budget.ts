/**
 * Invariant 22: a turn keeps to its budget.
 *
 * - Steps: with `budget.maxSteps` N, the agent loop sends at most N model
 *   requests (its `main` family in the outcome's timing; retries of one
 *   request are one request).
 * - Output tokens and cost: once a step closed with the turn's totals at a
 *   limit (the running totals of its `finish` chunk's step report), the
 *   turn sends no further model attempt: what it spent in the end is what
 *   it had spent then, so it runs past a limit by at most the step that
 *   reached it.
 * - A turn that failed on its budget names a limit of its own, with a
 *   measured value at that limit, that is the turn's final total (nothing
 *   was spent after the stop), and the first limit reached in the order
 *   steps, output tokens, cost.
 */
import type { RuntimeEvent, StepReport, TurnOutcome, TurnUsage } from "@turnkit/protocol";
import type { TurnScenario } from "../scenario.js";
import { InvariantViolation } from "./violation.js";

const INVARIANT = "22 a turn keeps to its budget";

/** A turn's limits, as a scenario gives them. */
export type Budget = NonNullable<TurnScenario["budget"]>;

/** Throws when the turn ran past a limit of `budget` (see the file's comment), or failed naming a limit it did not reach. */
export function checkTurnBudget(
  outcome: TurnOutcome,
  ownEvents: readonly RuntimeEvent[],
  budget: Budget | undefined,
): void {
  if (budget === undefined) return;
  checkStepLimit(outcome, budget.maxSteps);
  checkNoAttemptPastALimit(outcome.usage, ownEvents, budget);
  checkNamedLimit(outcome, budget);
}

/** The number of main requests the outcome reports is at most `maxSteps`. */
function checkStepLimit(outcome: TurnOutcome, maxSteps: number | undefined): void {
  if (maxSteps === undefined) return;
  const sent = mainRequests(outcome) ?? 0;
  if (sent > maxSteps) throw new InvariantViolation(INVARIANT, `${sent} model requests with maxSteps ${maxSteps}`);
}

/** The main requests the outcome's timing reports (`undefined` without timing). */
function mainRequests(outcome: TurnOutcome): number | undefined {
  return outcome.timing?.requests.filter((request) => request.family === "main").length;
}

/** The first output-token or cost limit `usage`'s totals reached, in words, or `undefined`. */
function reachedSpendingLimit(usage: TurnUsage, budget: Budget): string | undefined {
  if (budget.maxOutputTokens !== undefined && usage.total.output >= budget.maxOutputTokens)
    return `output tokens ${usage.total.output} at maxOutputTokens ${budget.maxOutputTokens}`;
  if (budget.maxCost !== undefined && usage.total.cost.total >= budget.maxCost)
    return `cost ${usage.total.cost.total} at maxCost ${budget.maxCost}`;
  return undefined;
}

/**
 * After the first step report (in `events`, one turn's own) whose totals
 * reached a spending limit of `budget`, the turn made no further main
 * attempt: `final` (its whole usage) counts no more. `turn` names it in
 * the violation.
 */
export function checkNoAttemptPastALimit(
  final: TurnUsage | undefined,
  events: readonly RuntimeEvent[],
  budget: Budget,
  turn = "the turn",
): void {
  if (!final) return;
  for (const event of events) {
    if (event.type !== "stream.resp" || event.payload.chunk.kind !== "finish") continue;
    const step: StepReport | undefined = event.payload.chunk.step;
    if (!step) continue;
    const reached = reachedSpendingLimit(step.turnUsage, budget);
    if (reached === undefined) continue;
    const then = step.turnUsage.attempts.main;
    if (final.attempts.main > then)
      throw new InvariantViolation(
        INVARIANT,
        `${turn}: step ${step.stepIndex} closed (seq ${event.seq}) with ${reached}, after ${then} model attempts; it made ${final.attempts.main}`,
      );
    return;
  }
}

/** A `budget_exceeded` failure names one of the turn's limits, reached by the turn's final totals, and the first one reached. */
function checkNamedLimit(outcome: TurnOutcome, budget: Budget): void {
  const named = outcome.kind === "failed" ? outcome.error.budget : undefined;
  if (!named) return;
  const fail = (detail: string): never => {
    throw new InvariantViolation(INVARIANT, `the failure names ${named.limit} ${named.max}: ${detail}`);
  };
  const max = budget[named.limit];
  if (named.max !== max) fail(`the turn's ${named.limit} is ${max}`);
  if (!(named.measured >= named.max)) fail(`measured ${named.measured} is below it`);
  const usage = outcome.usage;
  if (!usage) return;
  const steps = mainRequests(outcome);
  const totals = { maxSteps: steps, maxOutputTokens: usage.total.output, maxCost: usage.total.cost.total };
  if (named.measured !== totals[named.limit])
    fail(`measured ${named.measured}, but the turn's final total is ${totals[named.limit]}`);
  // The first limit reached is named: steps, then output tokens, then cost.
  const order = ["maxSteps", "maxOutputTokens", "maxCost"] as const;
  for (const earlier of order.slice(0, order.indexOf(named.limit))) {
    const limit = budget[earlier];
    const measured = totals[earlier];
    if (limit !== undefined && measured !== undefined && measured >= limit)
      fail(`${earlier} ${limit} was reached too (${measured}) and comes first`);
  }
}
