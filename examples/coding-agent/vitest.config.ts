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
