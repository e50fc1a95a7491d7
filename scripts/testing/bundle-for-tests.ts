/*
 * Bundling a TypeScript entry point for tests that start it as a child
 * process many times (worker processes killed with SIGKILL, the CLI run
 * once per case). Started through tsx, each process compiles the workspace
 * sources again: about 3 s of CPU per start on this 2-core machine against
 * under 1 s for the bundle.
 */
import { readFile } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import { pathToFileURL } from "node:url";
import * as esbuild from "esbuild";

/**
 * Bundles `entry` and the workspace sources it imports (resolved with the
 * `source` condition, as the tests' vitest configs resolve them) into ES
 * modules in `outDir`, and returns the path of the entry's module there
 * (`<outDir>/<entry's name>.mjs`). The bundle behaves like the sources
 * started with tsx:
 *
 * - packages from the registry are not bundled: each import is resolved
 *   from the file that makes it and written as an absolute path, so the
 *   bundle loads exactly the files the sources would;
 * - `import.meta.url` in a bundled source file stays that file's URL, so
 *   paths a source builds from it (fixtures, sibling scripts) still point
 *   into the workspace;
 * - a dynamic `import()` stays lazy (a chunk of its own), so a run that
 *   never takes that path (`--help`) does not load it.
 *
 * Rejects with esbuild's error when a source does not compile.
 */
export async function bundleForTests(entry: string, outDir: string): Promise<string> {
  await esbuild.build({
    entryPoints: [entry],
    outdir: outDir,
    outExtension: { ".js": ".mjs" },
    splitting: true,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    conditions: ["source"],
    logLevel: "warning",
    plugins: [
      {
        name: "registry-packages-stay-external",
        setup(build) {
          build.onResolve({ filter: /^[^./]/ }, async (args) => {
            if (args.path.startsWith("@turnkit/") || args.pluginData === "resolving") return undefined;
            if (args.path.startsWith("node:")) return { path: args.path, external: true };
            const resolved = await build.resolve(args.path, {
              resolveDir: args.resolveDir,
              kind: args.kind,
              pluginData: "resolving",
            });
            if (resolved.errors.length > 0) return { errors: resolved.errors };
            return { path: resolved.path, external: true };
          });
        },
      },
      {
        name: "import-meta-url-of-the-source",
        setup(build) {
          build.onLoad({ filter: /\.[cm]?ts$/ }, async (args) => {
            const source = await readFile(args.path, "utf8");
            const url = JSON.stringify(pathToFileURL(args.path).href);
            return { contents: source.replaceAll("import.meta.url", url), loader: "ts" };
          });
        },
      },
    ],
  });
  return join(outDir, `${basename(entry, extname(entry))}.mjs`);
}
