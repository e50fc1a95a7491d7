import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: { name: "example-quickstart", isolate: false, include: ["test/**/*.test.ts"] },
});
