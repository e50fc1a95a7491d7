/**
 * What every fuzz property is: `properties.ts` lists them, `run.ts` and the
 * CI tests run them.
 */
import type fc from "fast-check";

/** One property: a generator and a check that runs a case and throws on any broken invariant. */
export interface FuzzProperty<TScenario = unknown> {
  name: string;
  description: string;
  arbitrary: fc.Arbitrary<TScenario>;
  run(scenario: TScenario): Promise<void>;
  /** Cases per `vitest run` (CI budget). */
  ciRuns: number;
  /** Share of the `pnpm fuzz` budget, relative to the other properties. */
  fuzzWeight: number;
}
