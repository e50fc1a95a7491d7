/**
 * `public-api`: every exported function and class, and the methods a host
 * calls on the classes it builds, given odd arguments beside plausible
 * ones, refuse them with an Error that says what was wrong: never the
 * engine's text, a promise that does not settle, or an unhandled
 * rejection.
 */
import { describe } from "vitest";
import { propertyTest } from "../support/property-test.js";

describe("property: the public API refuses odd arguments in words", () => {
  propertyTest("public-api");
});
