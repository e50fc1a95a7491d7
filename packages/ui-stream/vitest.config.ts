import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    name: "ui-stream",
    include: ["test/**/*.test.ts"],
    // `eventsource-parser` (under `ai`) also publishes a `source` entry in TypeScript; let Vite compile it.
    server: { deps: { inline: [/node_modules\/ai\//, /@ai-sdk\//, /eventsource-parser/] } },
  },
});
