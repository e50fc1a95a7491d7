import { revokedProxy } from "@turnkit/agent-loop/testing";
import { expect, it } from "vitest";
import { McpConfigError, McpServerError } from "../src/index.js";

it("isInstance of agent-mcp's errors is false, never a throw, for a value that cannot be read (a revoked proxy)", () => {
  expect(McpConfigError.isInstance(revokedProxy())).toBe(false);
  expect(McpServerError.isInstance(revokedProxy())).toBe(false);
});
