/**
 * `runner-real-clock`: the runner's generated turns on Node's timers, sped
 * up and jittered, instead of the virtual clock. Every invariant of a
 * generated turn holds when timeouts, retries, tool delays and the host's
 * answers race in real time.
 */
import { describe } from "vitest";
import { propertyTest } from "../support/property-test.js";

describe("property: generated turns on a real clock", () => {
  propertyTest("runner-real-clock");
});
