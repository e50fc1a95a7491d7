// What `npx vitest` run in this folder reads. The repository's test run includes these tests in its
// `libraries` project (vitest.workspace.ts at the root), with the same global setup.
import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    name: "example-durable-server",
    isolate: false,
    testTimeout: 30_000,
    include: ["test/**/*.test.ts"],
    // The worker bundled once: each worker process the tests start runs plain node.
    globalSetup: ["test/support/worker-bundle.ts"],
    // `eventsource-parser` (under `ai`) publishes its TypeScript sources under the `source` condition
    // that vitest hands to Node: `ai` and its packages go through Vite, which compiles them.
    server: { deps: { inline: [/node_modules\/ai\//, /@ai-sdk\//, /eventsource-parser/] } },
  },
});
