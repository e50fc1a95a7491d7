import { defineProject } from "vitest/config";

export default defineProject({
  test: { name: "scripts", isolate: false, include: ["test/**/*.test.ts"] },
});
