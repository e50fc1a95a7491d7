/**
 * `runner-shared-signal`: many turns and loop runs at once on one caller
 * signal (a host's shutdown signal). No process warning, every run
 * settles, the ones waiting for the abort end aborted, and the signal
 * holds no listener once all have settled.
 */
import { describe } from "vitest";
import { propertyTest } from "../support/property-test.js";

describe("property: many turns on one caller signal", () => {
  propertyTest("runner-shared-signal");
});
