import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineProject } from "vitest/config";

/**
 * The workspace packages this package imports, resolved to their TypeScript
 * sources (their `source` export condition) by alias instead of by the
 * `source` condition the other packages set: Vitest hands that condition to
 * Node too, and the MCP SDK's `eventsource` dependencies publish a `source`
 * condition of their own that points Node at `.ts` files it cannot load.
 */
function workspaceSourceAliases(names: readonly string[]) {
  return names.flatMap((name) => {
    const folder = new URL(`../${name}/`, import.meta.url);
    const manifest = JSON.parse(readFileSync(new URL("package.json", folder), "utf8")) as {
      name: string;
      exports: Record<string, { source: string }>;
    };
    return Object.entries(manifest.exports).map(([subpath, target]) => ({
      find: new RegExp(`^${(manifest.name + subpath.slice(1)).replace(/[/.-]/g, "\\$&")}$`),
      replacement: fileURLToPath(new URL(target.source, folder)),
    }));
  });
}

export default defineProject({
  resolve: { alias: workspaceSourceAliases(["protocol", "agent-loop", "agent-core", "agent-runtime", "agent-mcp"]) },
  test: {
    name: "agent-mcp",
    isolate: false,
    testTimeout: 30_000,
    // The fuzz's MCP property runs here: its cases need the SDK's HTTP client, which the fuzz's own project cannot load.
    include: ["test/**/*.test.ts", "src/**/*.test.ts", "../../fuzz/test/mcp/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
  },
});
