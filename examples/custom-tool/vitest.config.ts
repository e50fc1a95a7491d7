import { defineProject } from "vitest/config";
import { lowerStandardDecorators } from "../../vitest.decorators.ts";

export default defineProject({
  plugins: [lowerStandardDecorators],
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: { name: "example-custom-tool", isolate: false, include: ["test/**/*.test.ts"] },
});
