/**
 * `nested-options`: the options hosts build an `Agent`, a runner, an agent
 * runtime, an MCP extension, a retry or call stack, a chat transport and a
 * UI stream from, each valid but for one field (at any depth) set to an odd
 * value, then used once: refused or run in words, never the engine's text,
 * a hang or an unhandled rejection.
 */
import { describe } from "vitest";
import { propertyTest } from "../support/property-test.js";

describe("property: options with one odd field", () => {
  propertyTest("nested-options");
});
