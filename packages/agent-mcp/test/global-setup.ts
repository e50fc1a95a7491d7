import { type Plugin, build } from "esbuild";
import {
  APART_STDIO_BUNDLE,
  APART_STDIO_SOURCE,
  HOST_PROCESS_BUNDLE,
  HOST_PROCESS_SOURCE,
  STDIO_SERVER_BUNDLE,
  STDIO_SERVER_SOURCE,
} from "./fixtures/stdio-fixture.js";

/**
 * Compiles the stdio fixture servers once per test run into one ES module
 * inside the package's node_modules, the SDK's server code bundled in, so
 * each test starts it with plain `node`: the tests start it often, and a
 * TypeScript loader at every start would cost more than the server itself.
 * Bundling the SDK too halves a start's CPU time (about 0.2 s instead of
 * 0.45 s here): Node no longer resolves and loads its hundreds of modules.
 *
 * The host process of the lifecycle test is compiled too, with the
 * workspace's TypeScript sources (their `source` condition) and every
 * other package left to Node at the path it resolves to: started with a
 * TypeScript loader instead, it compiled those sources at each run (about
 * 10 s on a loaded 2-core machine).
 */
export default async function setup(): Promise<void> {
  const bundle = (source: string, outfile: string) =>
    build({
      entryPoints: [source],
      outfile,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      logLevel: "warning",
    });
  await Promise.all([
    bundle(STDIO_SERVER_SOURCE, STDIO_SERVER_BUNDLE),
    bundle(APART_STDIO_SOURCE, APART_STDIO_BUNDLE),
    build({
      entryPoints: [HOST_PROCESS_SOURCE],
      outfile: HOST_PROCESS_BUNDLE,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      logLevel: "warning",
      conditions: ["source"],
      plugins: [workspaceSourcesOnly],
    }),
  ]);
}

/**
 * Bundles the workspace's packages (`@turnkit/*`) and leaves every other
 * package external, imported by the absolute path esbuild resolves it to:
 * the bundle lies where Node would not find the workspace packages'
 * dependencies by name.
 */
const workspaceSourcesOnly: Plugin = {
  name: "workspace-sources-only",
  setup(plugin) {
    plugin.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith("@turnkit/") || args.path.startsWith("node:") || args.pluginData === "resolving")
        return undefined;
      const { kind, resolveDir, importer } = args;
      const resolved = await plugin.resolve(args.path, { kind, resolveDir, importer, pluginData: "resolving" });
      return { path: resolved.path, external: true };
    });
  },
};
