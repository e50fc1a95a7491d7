import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    name: "agent-durable",
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    // One Postgres for every test file (each gets a database of its own), and the test worker bundled once.
    globalSetup: ["test/support/global-setup.ts"],
    // One process runs the files one after the other, so the package and DBOS are imported once, not per file.
    isolate: false,
    testTimeout: 30_000,
    // Tests of one file that run at once (describe.concurrent) each start worker processes: two at a time keep
    // the processes loading at once few enough not to starve the timing of the other files' workers.
    maxConcurrency: 2,
  },
});
