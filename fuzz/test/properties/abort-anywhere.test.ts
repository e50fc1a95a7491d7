/**
 * `runner-abort-anywhere`: a generated turn run once to count its events,
 * then again with the host aborting from inside its writer at one of them
 * (half the time the terminal status or the event before it), writers
 * late or failing as generated. Every turn invariant holds for the aborted
 * run: `seq` without a gap, the terminal status last and matching.
 */
import { describe } from "vitest";
import { propertyTest } from "../support/property-test.js";

describe("property: the caller's abort at any event", () => {
  propertyTest("runner-abort-anywhere");
});
