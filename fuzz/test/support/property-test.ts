/**
 * Runs a fuzz property inside `vitest run` with the CI budget: a fixed seed
 * (deterministic across machines) and the property's `ciRuns`. On failure
 * fast-check's report names the seed, the path and the shrunk counterexample;
 * `pnpm fuzz --property <name> --seed <seed> --path <path>` replays it.
 */
import fc from "fast-check";
import { it } from "vitest";
import { CI_SEED, type FuzzProperty, asyncPropertyOf, createFuzzProperties } from "../../src/properties.js";

/** The properties as CI runs them: generators steer around the bugs listed in `fuzz/src/known-bugs.ts`. */
export const CI_PROPERTIES = createFuzzProperties({ avoidKnownBugs: true });

/** Generous per-test limit; the whole CI budget takes seconds. */
const PROPERTY_TIMEOUT_MS = 120_000;

export function propertyTest(name: string): void {
  const property: FuzzProperty | undefined = CI_PROPERTIES.find((candidate) => candidate.name === name);
  if (!property) throw new Error(`No fuzz property named ${name}`);
  it(
    `${property.name}: ${property.description} (${property.ciRuns} cases, seed ${CI_SEED})`,
    async () => {
      await fc.assert(asyncPropertyOf(property), { seed: CI_SEED, numRuns: property.ciRuns });
    },
    PROPERTY_TIMEOUT_MS,
  );
}
