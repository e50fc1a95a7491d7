/**
 * The test projects of the workspace. Vitest 4 no longer reads this file on
 * its own; `vitest.config.ts` imports it as `test.projects`, so this list is
 * the one the test command runs.
 *
 * Every project's config sets `isolate: false` (a worker imports the packages
 * once, not once per file; files clean up after themselves) and
 * `testTimeout: 30_000` (vitest's 5 s default failed tests that start real
 * servers and processes when the 2-core machine is loaded; a hung test still
 * fails).
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
