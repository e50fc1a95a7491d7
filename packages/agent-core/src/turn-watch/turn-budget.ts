import { describeValue } from "@turnkit/agent-loop/internal";
import type { BudgetExceededDetail } from "@turnkit/protocol";
import { ConfigErrorCode, TurnkitConfigError } from "../errors.js";

/**
 * Limits a host sets for one turn (`RunTurnInput.budget`). When one is
 * reached, the turn ends cleanly after the current step: no new model
 * request, every tool call of the step answered, outcome `failed` with
 * code `budget_exceeded` naming the limit and the measured value. A turn
 * that reaches a limit on its last step (no further request needed) ends
 * as it would have anyway.
 */
export interface TurnBudget {
  /** Model requests of the agent loop (steps), a positive integer. A hook's own requests do not count. */
  maxSteps?: number;
  /** Output tokens of every request of the turn (main and auxiliary, every attempt), a positive number. */
  maxOutputTokens?: number;
  /** Cost of every request of the turn, in the currency of the model's price table (pi-ai: US dollars), a positive number. */
  maxCost?: number;
}

/** What a budget is checked against: the turn's running totals. */
export interface BudgetMeasurements {
  steps: number;
  outputTokens: number;
  cost: number;
}

/** Throws a `TurnkitConfigError` (`invalid_turn_input`) naming the field, for a budget that is not an object of positive limits. */
export function assertValidTurnBudget(budget: unknown): void {
  if (budget === undefined) return;
  if (typeof budget !== "object" || budget === null || Array.isArray(budget)) {
    throw new TurnkitConfigError(
      ConfigErrorCode.InvalidTurnInput,
      "RunTurnInput.budget must be an object ({ maxSteps?, maxOutputTokens?, maxCost? })",
    );
  }
  const { maxSteps, maxOutputTokens, maxCost } = budget as TurnBudget;
  const positive = (name: string, value: unknown, integer: boolean) => {
    if (value === undefined) return;
    if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
      throw new TurnkitConfigError(
        ConfigErrorCode.InvalidTurnInput,
        `RunTurnInput.budget.${name} must be a positive ${integer ? "integer" : "number"}, got ${describeValue(value)}`,
      );
    }
  };
  positive("maxSteps", maxSteps, true);
  positive("maxOutputTokens", maxOutputTokens, false);
  positive("maxCost", maxCost, false);
}

/** The first limit of `budget` the measurements reached (steps, then output tokens, then cost), or `undefined`. */
export function reachedLimit(
  budget: TurnBudget | undefined,
  measured: BudgetMeasurements,
): BudgetExceededDetail | undefined {
  if (!budget) return undefined;
  if (budget.maxSteps !== undefined && measured.steps >= budget.maxSteps)
    return { limit: "maxSteps", max: budget.maxSteps, measured: measured.steps };
  if (budget.maxOutputTokens !== undefined && measured.outputTokens >= budget.maxOutputTokens) {
    return { limit: "maxOutputTokens", max: budget.maxOutputTokens, measured: measured.outputTokens };
  }
  if (budget.maxCost !== undefined && measured.cost >= budget.maxCost)
    return { limit: "maxCost", max: budget.maxCost, measured: measured.cost };
  return undefined;
}

/**
 * The message of a sub-agent turn's `budget_exceeded` failure on a limit of
 * a turn above it, reached by that turn's totals with what the sub-agents
 * running beside this one spent.
 */
export function limitAboveMessage(detail: BudgetExceededDetail): string {
  const what = detail.limit === "maxCost" ? "cost" : "output token";
  return `A turn above this sub-agent reached its ${what} limit (${detail.limit} ${detail.max}) at ${detail.measured}, counting the sub-agents running beside this one; it ended without another request`;
}

/** The message of a `budget_exceeded` failure, in words. */
export function budgetExceededMessage(detail: BudgetExceededDetail): string {
  switch (detail.limit) {
    case "maxSteps":
      return `The turn reached its step limit (maxSteps ${detail.max}) after ${detail.measured} model requests; it ended without another request`;
    case "maxOutputTokens":
      return `The turn reached its output token limit (maxOutputTokens ${detail.max}) with ${detail.measured} output tokens; it ended without another request`;
    case "maxCost":
      return `The turn reached its cost limit (maxCost ${detail.max}) at ${detail.measured}; it ended without another request`;
    default: {
      const unreachable: never = detail.limit;
      return unreachable;
    }
  }
}
