/**
 * `run-turn-input`: `runTurn` inputs malformed as JavaScript hosts make
 * them (getters that throw at once or on a later read, or answer otherwise
 * later; proxies whose trap throws, revoked proxies; frozen objects; lists
 * with a hole or a length of 2^32 - 1; own `__proto__` keys; long, non-BMP
 * or unpaired-surrogate strings; `NaN`, `-0`, `Infinity`, `1e308` in the
 * options). Each is refused with a `TurnkitConfigError` naming the field
 * before any event, or runs to one terminal status with `seq` unbroken and
 * no engine text; a fault that changes no value read once completes.
 */
import { describe } from "vitest";
import { propertyTest } from "../support/property-test.js";

describe("property: malformed runTurn inputs", () => {
  propertyTest("run-turn-input");
});
