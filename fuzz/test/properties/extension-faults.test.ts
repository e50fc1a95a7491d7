/**
 * `extension-faults`: runtimes whose extensions' per-turn contributions
 * throw, reject or hand over values the assembly cannot read, and ctxs
 * that cannot be read. `assembleTurn` resolves only when every
 * contribution answered well; otherwise it rejects with a typed error
 * naming a failing extension and contribution, without engine text.
 */
import { describe } from "vitest";
import { propertyTest } from "../support/property-test.js";

describe("property: extension contributions that fail are typed and named", () => {
  propertyTest("extension-faults");
});
