/**
 * Turn budgets (`RunTurnInput.budget`) for generated turns: a few steps, a
 * number of output tokens, a small cost; and now and then a spending limit
 * set exactly to what the turn's first responses report, so a limit checked
 * off by one (`>` for `>=`) shows.
 */
import type { Usage } from "@mariozechner/pi-ai";
import fc from "fast-check";
import { oneIn } from "./response-arbitraries.js";
import type { RequestSpec, TurnScenario } from "./scenario.js";

type TurnBudgetSpec = NonNullable<TurnScenario["budget"]>;

/** A budget with any of its three limits, or none (two cases in three). */
export const turnBudgetArbitrary: fc.Arbitrary<TurnBudgetSpec | undefined> = oneIn(
  3,
  fc.record(
    {
      maxSteps: fc.integer({ min: 1, max: 3 }),
      maxOutputTokens: fc.integer({ min: 1, max: 400 }),
      maxCost: fc.constantFrom(0.000001, 0.001, 0.05),
    },
    { requiredKeys: [] },
  ),
);

/** Which spending limit to put at the boundary, and after how many responses; in one case out of four. */
export interface BudgetBoundary {
  limit: "maxOutputTokens" | "maxCost";
  responses: number;
}

export const budgetBoundaryArbitrary: fc.Arbitrary<BudgetBoundary | undefined> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  {
    weight: 1,
    arbitrary: fc.record({
      limit: fc.constantFrom("maxOutputTokens" as const, "maxCost" as const),
      responses: fc.integer({ min: 1, max: 3 }),
    }),
  },
);

/** A reported count as the runner counts it: what is not a finite number of at least 0 (text, missing) is 0. */
function counted(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** What the first `responses` responses of `requests` report, as the runner adds it up (failed attempts report nothing). */
function spentBy(requests: readonly RequestSpec[], responses: number, limit: BudgetBoundary["limit"]): number {
  const measure = (usage: Usage) => counted(limit === "maxOutputTokens" ? usage.output : usage.cost?.total);
  let spent = 0;
  for (const request of requests.slice(0, responses))
    if (request.response.usage) spent += measure(request.response.usage);
  return spent;
}

/**
 * `budget` with `boundary.limit` set to exactly what the first
 * `boundary.responses` responses spend (when that is a valid limit: positive
 * and finite); otherwise `budget` as it is.
 */
export function withBudgetBoundary(
  budget: TurnBudgetSpec | undefined,
  requests: readonly RequestSpec[],
  boundary: BudgetBoundary | undefined,
): TurnBudgetSpec | undefined {
  if (!boundary) return budget;
  const spent = spentBy(requests, boundary.responses, boundary.limit);
  if (!(spent > 0 && Number.isFinite(spent))) return budget;
  return { ...budget, [boundary.limit]: spent };
}
