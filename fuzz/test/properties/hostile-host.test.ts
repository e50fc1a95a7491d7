/**
 * Property `runner-hostile-host`: `PiTurnRunner` with a host that misbehaves
 * in every way the runner promises to survive: loggers that throw or
 * reject, host callbacks (steering poll, close, stop checks, id allocator)
 * failing with texts a provider could send ("429 ...", "... timed out ...",
 * "ECONNRESET"), slow and hung members first in a hook chain (also ones that
 * abort the turn and then hang), polls handing over several messages at
 * once, step-end hooks queueing several, on top of everything the `runner`
 * property generates. Invariants 1 to 11 of the fuzz README after each run.
 */
import { describe } from "vitest";
import { propertyTest } from "../support/property-test.js";

describe("property: PiTurnRunner with a hostile host", () => {
  propertyTest("runner-hostile-host");
});
