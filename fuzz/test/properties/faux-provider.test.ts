/**
 * `runner-faux-provider`: the runner's generated turns answered by pi-ai's
 * `registerFauxProvider` through the default request path (`streamSimple`).
 * Every turn settles once, numbered without a gap, its history replayable,
 * whatever the faux provider streams or fails with.
 */
import { describe } from "vitest";
import { propertyTest } from "../support/property-test.js";

describe("property: generated turns against pi-ai's faux provider", () => {
  propertyTest("runner-faux-provider");
});
