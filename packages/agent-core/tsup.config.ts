import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", testing: "src/testing/index.ts", internal: "src/internal.ts" },
  format: ["esm"],
  dts: { compilerOptions: { customConditions: [] } },
  sourcemap: true,
  clean: true,
  target: "node20",
});
