import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "scripts", isolate: false, testTimeout: 30_000, include: ["test/**/*.test.ts"] },
});
