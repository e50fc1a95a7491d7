/**
 * What a provider reports as a response's usage, odd values included: zero,
 * huge, negative, `NaN` and `Infinity` counts and costs, and now and then a
 * misshapen usage (a count missing or given as text, the cost object
 * missing, null or empty). The runner counts what is not a finite number of
 * at least 0 as 0 and keeps every event and history message JSON-safe
 * (invariant 20).
 */
import type { Usage } from "@mariozechner/pi-ai";
import fc from "fast-check";

/** One reported count or cost: mostly ordinary, sometimes what no JSON or schema accepts. */
const reportedNumber: fc.Arbitrary<number> = fc.oneof(
  { weight: 4, arbitrary: fc.nat({ max: 5_000 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, 1e15, Number.MAX_SAFE_INTEGER, -1) },
  { weight: 1, arbitrary: fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY) },
);

/** A usage of the right shape, its numbers odd now and then. */
const wellShapedUsage: fc.Arbitrary<Usage> = fc
  .record({
    input: reportedNumber,
    output: reportedNumber,
    cacheRead: reportedNumber,
    cacheWrite: reportedNumber,
    totalTokens: reportedNumber,
    cost: reportedNumber,
  })
  .map(({ cost, ...counts }) => ({
    ...counts,
    cost: { input: cost, output: cost, cacheRead: 0, cacheWrite: 0, total: cost },
  }));

/** How a provider's usage may be misshapen: a count missing or given as text, the cost object missing, null or empty. */
const MISSHAPES = ["dropOutput", "textCounts", "noCost", "nullCost", "emptyCost"] as const;

/** `usage` misshapen as `misshape` says (plain data still). */
function misshapen(usage: Usage, misshape: (typeof MISSHAPES)[number]): Usage {
  const odd: Record<string, unknown> = { ...usage };
  switch (misshape) {
    case "dropOutput":
      delete odd.output;
      break;
    case "textCounts":
      odd.input = String(usage.input);
      odd.output = String(usage.output);
      odd.cost = { ...usage.cost, total: String(usage.cost.total) };
      break;
    case "noCost":
      delete odd.cost;
      break;
    case "nullCost":
      odd.cost = null;
      break;
    case "emptyCost":
      odd.cost = {};
      break;
  }
  return odd as unknown as Usage;
}

/**
 * A usage as a provider might report it (plain data, printed with the
 * counterexample): mostly of the right shape, now and then misshapen (a
 * count missing or given as text, the cost object missing, null or
 * empty), which the runner counts as 0 where a number is missing.
 */
export const reportedUsageArbitrary: fc.Arbitrary<Usage> = fc.oneof(
  { weight: 4, arbitrary: wellShapedUsage },
  {
    weight: 1,
    arbitrary: fc
      .tuple(wellShapedUsage, fc.constantFrom(...MISSHAPES))
      .map(([usage, misshape]) => misshapen(usage, misshape)),
  },
);
