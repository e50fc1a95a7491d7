/**
 * `runner-ask-host`: generated turns whose tools ask the host
 * (`ctx.askHost`) one to three times per call, with timeouts on the virtual
 * clock (some not valid), and a host that answers at once, late, with a
 * value that is no answer, by throwing, never, or has no answer function;
 * host aborts while questions wait. After each run every turn invariant
 * holds, and invariant 17: each question ends once, as the host's behaviour
 * and the timeout say, with one action.required, one host call and one
 * trace.
 */
import { describe } from "vitest";
import { propertyTest } from "../support/property-test.js";

describe("property: PiTurnRunner with tools that ask the host", () => {
  propertyTest("runner-ask-host");
});
