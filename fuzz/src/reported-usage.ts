/**
 * What a provider reports as a response's usage, odd values included: zero,
 * huge, negative, `NaN` and `Infinity` counts and costs. The runner counts
 * what is not a finite number of at least 0 as 0 and keeps every event and
 * history message JSON-safe (invariant 20).
 */
import type { Usage } from "@mariozechner/pi-ai";
import fc from "fast-check";

/** One reported count or cost: mostly ordinary, sometimes what no JSON or schema accepts. */
const reportedNumber: fc.Arbitrary<number> = fc.oneof(
  { weight: 4, arbitrary: fc.nat({ max: 5_000 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, 1e15, Number.MAX_SAFE_INTEGER, -1) },
  { weight: 1, arbitrary: fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY) },
);

/** A usage as a provider might report it (plain data, printed with the counterexample). */
export const reportedUsageArbitrary: fc.Arbitrary<Usage> = fc
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
