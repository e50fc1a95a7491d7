import { configDefaults, defineProject } from "vitest/config";
import { lowerStandardDecorators } from "./vitest.decorators.ts";

/**
 * The test projects of the workspace. Vitest 4 no longer reads this file on
 * its own; `vitest.config.ts` imports it as `test.projects`, so this list is
 * the one the test command runs.
 *
 * The libraries, the conformance suite, the fuzz's tests, the repository
 * scripts, the bench's own checks and the examples are one project, `libraries`: a worker
 * imports the packages once for all of them, where a project of its own per
 * package made every worker start again at each package (about 10 s each on
 * two cores). Filter it by path: `vitest run packages/agent-core`,
 * `vitest run examples/durable-server`. The examples' global setups (the
 * coding agent's CLI and the durable server's worker, each bundled once) run
 * with it, about 1 s on two cores. agent-durable (one Postgres for the run)
 * and agent-mcp (its sources by alias, not by condition) keep their own
 * project and config.
 *
 * Every project sets `isolate: false` (a worker imports the packages once,
 * not once per file; files clean up after themselves) and
 * `testTimeout: 30_000` (vitest's 5 s default failed tests that start real
 * servers and processes when the 2-core machine is loaded; a hung test still
 * fails). Packages are imported from their TypeScript sources (the `source`
 * export condition), so tests need no build.
 */
export default [
  defineProject({
    // Decorator syntax (`@bindTool`) lowered for Node 20: agent-core's tests and the custom-tool example use it.
    plugins: [lowerStandardDecorators],
    resolve: { conditions: ["source"] },
    ssr: { resolve: { conditions: ["source"] } },
    test: {
      name: "libraries",
      isolate: false,
      testTimeout: 30_000,
      include: [
        "packages/{protocol,agent-loop,agent-core,agent-runtime,ui-stream}/{test,src}/**/*.test.ts",
        "{conformance,fuzz,scripts,bench}/test/**/*.test.ts",
        "examples/{extension,quickstart,testing-your-host,custom-tool,coding-agent,durable-server}/test/**/*.test.ts",
      ],
      // Each bundled once per run: the processes the examples' tests start run plain node.
      globalSetup: [
        "examples/coding-agent/test/support/cli-process.ts",
        "examples/durable-server/test/support/worker-bundle.ts",
      ],
      // The MCP property needs the SDK's HTTP client, which the `source` condition cannot load: agent-mcp's project runs it.
      exclude: [...configDefaults.exclude, "fuzz/test/mcp/**"],
      // The AI SDK's UI message stream is ESM that vitest must transform itself (ui-stream's tests).
      server: { deps: { inline: [/node_modules\/ai\//, /@ai-sdk\//, /eventsource-parser/] } },
    },
  }),
  "packages/agent-durable",
  "packages/agent-mcp",
];
