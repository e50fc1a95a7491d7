// What `npx vitest` run in this folder reads. The repository's test run includes these tests in its
// `libraries` project (vitest.workspace.ts at the root), with the same global setup.
import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    name: "example-coding-agent",
    isolate: false,
    testTimeout: 30_000,
    include: ["test/**/*.test.ts"],
    // The CLI bundled once: each CLI process the tests start runs plain node.
    globalSetup: ["test/support/cli-process.ts"],
  },
});
