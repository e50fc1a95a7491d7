/**
 * The generators make each rare case as often as their documents say.
 * fast-check's `fc.option(arb, { freq: n })` builds the *empty* value in one
 * case out of n, the other way round from how "now and then" reads; a
 * property that meant "one case in eight" with it ran its rare branch in
 * seven cases of eight, and its main check in one. The fuzz says how often
 * with `oneIn` / `mostly` instead, and these shares are measured here.
 */
import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { turnBudgetArbitrary } from "../src/budget-arbitraries.js";
import { compactionScenarioArbitrary } from "../src/compaction-scenario.js";
import { httpProviderTurnArbitrary } from "../src/http-provider-turns.js";

const SOURCES = new URL("../src/", import.meta.url);

/** `samples` values of `arbitrary`, the same on every run. */
function sample<T>(arbitrary: fc.Arbitrary<T>, samples = 800): T[] {
  return fc.sample(arbitrary, { numRuns: samples, seed: 42 });
}

/** The share of `values` for which `test` holds. */
function share<T>(values: T[], test: (value: T) => boolean): number {
  return values.filter(test).length / values.length;
}

describe("generator shares", () => {
  it("no generator uses fc.option's freq (it counts the empty side)", () => {
    const offenders = readdirSync(SOURCES, { recursive: true })
      .map(String)
      .filter((file) => file.endsWith(".ts"))
      .filter((file) => /fc\.option\([^;]*freq\s*:/s.test(readFileSync(new URL(file, SOURCES), "utf8")));
    expect(offenders).toEqual([]);
  });

  it("runner-http-provider builds a faulty model in one case in eight, and speaks every API", () => {
    const cases = sample(httpProviderTurnArbitrary({ avoidKnownBugs: true }), 400);
    const faulty = share(cases, ({ http }) => http.modelFault !== undefined);
    expect(faulty).toBeGreaterThan(1 / 16);
    expect(faulty).toBeLessThan(1 / 5);
    for (const dialect of ["openai-completions", "openai-responses", "anthropic-messages", "google-generative-ai"])
      expect(
        share(cases, ({ http }) => http.dialect === dialect),
        dialect,
      ).toBeGreaterThan(1 / 8);
  });

  it("a turn has a budget in one case in three, a compaction scenario an output-token budget in one in three", () => {
    const budgets = share(sample(turnBudgetArbitrary), (budget) => budget !== undefined);
    expect(budgets).toBeGreaterThan(0.2);
    expect(budgets).toBeLessThan(0.45);
    const compaction = share(sample(compactionScenarioArbitrary), (scenario) => scenario.maxOutputTokens !== undefined);
    expect(compaction).toBeGreaterThan(0.2);
    expect(compaction).toBeLessThan(0.45);
  });
});
