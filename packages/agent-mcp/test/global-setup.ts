import { build } from "esbuild";
import { STDIO_SERVER_BUNDLE, STDIO_SERVER_SOURCE } from "./fixtures/stdio-fixture.js";

/**
 * Compiles the stdio fixture server once per test run into one ES module
 * next to the package's node_modules (the SDK stays an import), so each test
 * starts it with plain `node`: the tests start it often, and a TypeScript
 * loader at every start would cost more than the server itself.
 */
export default async function setup(): Promise<void> {
  await build({
    entryPoints: [STDIO_SERVER_SOURCE],
    outfile: STDIO_SERVER_BUNDLE,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: ["@modelcontextprotocol/sdk", "@modelcontextprotocol/sdk/*"],
    logLevel: "warning",
  });
}
