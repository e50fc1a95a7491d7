/**
 * `mcp-server` and `mcp-stdio-server` with the CI budget: generated MCP
 * servers driven through agent-mcp in real turns, over Streamable HTTP and
 * as child processes over stdio. Their cases need the SDK's HTTP client,
 * which the `source` condition of the fuzz's own project cannot load: this
 * folder runs in agent-mcp's project (see its `vitest.config.ts`). Longer
 * runs: `pnpm fuzz --property mcp-server --runs N --seed S` (or
 * `mcp-stdio-server`).
 */
import { describe, it } from "vitest";
import { assertMcpServerProperty, mcpServerProperty, mcpStdioServerProperty } from "../../src/mcp-server-property.js";

/** The fuzz's fixed CI seed (`CI_SEED` of `fuzz/src/properties.ts`, which loads every property). */
const CI_SEED = 20_260_801;

describe("property: generated MCP servers", () => {
  it(`${mcpServerProperty.description} (${mcpServerProperty.ciRuns} cases, seed ${CI_SEED})`, async () => {
    await assertMcpServerProperty(mcpServerProperty, { seed: CI_SEED, numRuns: mcpServerProperty.ciRuns });
  }, 120_000);

  it(`${mcpStdioServerProperty.description} (${mcpStdioServerProperty.ciRuns} cases, seed ${CI_SEED})`, async () => {
    await assertMcpServerProperty(mcpStdioServerProperty, { seed: CI_SEED, numRuns: mcpStdioServerProperty.ciRuns });
  }, 120_000);
});
