/**
 * `runner-sub-agents`: generated turns that offer sub-agents whose children
 * answer (after a tool call of their own, or slowly), fail, hang until a
 * watchdog or an abort ends them, reach their own budget or call a
 * sub-agent of their own; calls in parallel or in sequence, host aborts
 * while children run. After each run every turn invariant holds for the
 * parent's own events, and invariant 16 for the children's: marked,
 * numbered without a gap per child, and reported with their cost.
 */
import { describe } from "vitest";
import { propertyTest } from "../support/property-test.js";

describe("property: PiTurnRunner with sub-agents", () => {
  propertyTest("runner-sub-agents");
});
