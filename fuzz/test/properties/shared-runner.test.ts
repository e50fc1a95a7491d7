/**
 * Turns on one runner are independent (invariant 12 in fuzz/README.md's
 * table): two to four generated runner turns, some with provider failures
 * and retry, start at once on one `PiTurnRunner` and one virtual clock;
 * each must settle, emit and deliver history exactly as it does alone.
 */
import { describe } from "vitest";
import { propertyTest } from "../support/property-test.js";

describe("property: turns sharing a PiTurnRunner", () => {
  propertyTest("runner-shared");
});
