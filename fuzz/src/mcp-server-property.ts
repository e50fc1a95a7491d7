/**
 * The `mcp-server` property (generated MCP servers through
 * `@turnkit/agent-mcp`; see `mcp-server-scenario.ts`). Its cases run
 * over HTTP and so need the MCP SDK's HTTP client, which the fuzz's own
 * vitest project (the `source` condition) cannot load: CI runs it from
 * agent-mcp's tests (`packages/agent-mcp/test/server-fuzz.test.ts`),
 * `pnpm fuzz --property mcp-server` from here. The case runner is loaded
 * at the first case, so the other properties never load the SDK.
 */
import fc from "fast-check";
import { type McpFuzzCase, mcpFuzzCaseArbitrary } from "./mcp-server-arbitraries.js";
import type { FuzzProperty } from "./fuzz-property.js";

/** The property, as `createFuzzProperties` lists it. */
export const mcpServerProperty: FuzzProperty<McpFuzzCase> = {
  name: "mcp-server",
  description:
    "generated MCP servers (odd and invalid tool lists, every content kind, structured content against output schemas, JSON-RPC errors, hangs, dropped connections, closed sessions, progress, logs, list_changed, sampling and elicitation mid-call) through agent-mcp in a PiTurnRunner turn, then the host's reads of its resources and prompts: every call answered, failures typed and named, no engine text, no hang",
  arbitrary: mcpFuzzCaseArbitrary,
  run: async (scenario) => (await import("./mcp-server-scenario.js")).checkMcpCase(scenario),
  ciRuns: 25,
  fuzzWeight: 0.5,
};

/** Runs the property with fast-check's `assert` (`numRuns` cases from `seed`), then stops its server. */
export async function assertMcpServerProperty(options: { seed: number; numRuns: number }): Promise<void> {
  try {
    await fc.assert(
      fc.asyncProperty(mcpServerProperty.arbitrary, (scenario) => mcpServerProperty.run(scenario)),
      options,
    );
  } finally {
    await (await import("./mcp-fuzz-server.js")).closeMcpFuzzServer();
  }
}
