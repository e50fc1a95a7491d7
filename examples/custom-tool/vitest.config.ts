// What `npx vitest` run in this folder reads. The repository's test run includes these tests in its
// `libraries` project (vitest.workspace.ts at the root), with the same plugin.
import { defineProject } from "vitest/config";
import { lowerStandardDecorators } from "../../vitest.decorators.ts";

export default defineProject({
  plugins: [lowerStandardDecorators],
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: { name: "example-custom-tool", isolate: false, testTimeout: 30_000, include: ["test/**/*.test.ts"] },
});
