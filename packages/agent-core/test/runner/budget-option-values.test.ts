/**
 * A budget limit that is no positive number is refused naming the field
 * and the value as given. NaN and Infinity are no JSON: shown through
 * `JSON.stringify` they read as "null", a value the host never gave.
 */
import { describe, expect, it } from "vitest";
import { runScriptedTurn } from "../../src/testing/index.js";

describe("a budget limit of NaN or Infinity", () => {
  it.each([
    ["maxSteps", Number.NaN, "NaN"],
    ["maxOutputTokens", Number.POSITIVE_INFINITY, "Infinity"],
    ["maxCost", Number.NEGATIVE_INFINITY, "-Infinity"],
  ] as const)("(%s = %s) is refused naming the value as given", async (field, value, shown) => {
    await expect(runScriptedTurn({ script: ["hi"], input: { budget: { [field]: value } } })).rejects.toThrow(
      `RunTurnInput.budget.${field} must be a positive ${field === "maxSteps" ? "integer" : "number"}, got ${shown}`,
    );
  });
});
