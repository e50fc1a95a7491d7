/**
 * `definition-refusals`: a sub-agent definition or a turn's `llm.fallback`
 * list with one field of the wrong type, out of range or under a misspelt
 * key, among valid neighbours. Each is refused where it is written
 * (`defineSubAgent`; `runTurn` before any event) with a
 * `TurnkitConfigError` naming the field, and the same definition without
 * the fault is accepted.
 */
import { describe } from "vitest";
import { propertyTest } from "../support/property-test.js";

describe("property: bad definitions refused where written", () => {
  propertyTest("definition-refusals");
});
