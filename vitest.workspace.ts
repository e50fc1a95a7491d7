/**
 * The test projects of the workspace. Vitest 4 no longer reads this file on
 * its own; `vitest.config.ts` imports it as `test.projects`, so this list is
 * the one the test command runs.
 */
export default [
  "packages/protocol",
  "packages/agent-loop",
  "packages/agent-core",
  "packages/agent-runtime",
  "packages/agent-durable",
  "packages/agent-mcp",
  "packages/ui-stream",
  "conformance",
  "fuzz",
  "scripts",
  "examples/*",
];
