/**
 * `runner-reentrant`: the host re-enters the runner from inside a turn (its
 * event writer, a hook, a tool or the runner's logger starts another
 * `runTurn` on the same runner, with the same or other ids, awaited or left
 * running, or aborts the turn). Every turn settles once, numbers its own
 * events without a gap, ends with one terminal status, never calls host
 * code after it settled, and a re-entry that aborts nothing leaves the
 * outer turn completed.
 */
import { describe } from "vitest";
import { propertyTest } from "../support/property-test.js";

describe("property: turns started from inside a turn", () => {
  propertyTest("runner-reentrant");
});
