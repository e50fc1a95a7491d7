import { defineProject } from "vitest/config";
import { lowerStandardDecorators } from "../../vitest.decorators.ts";

export default defineProject({
  plugins: [lowerStandardDecorators],
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: { name: "example-custom-tool", isolate: false, testTimeout: 30_000, include: ["test/**/*.test.ts"] },
});
