/*
 * Bundling a TypeScript entry point for tests that start it as a child
 * process many times (worker processes killed with SIGKILL, the CLI run
 * once per case). Started through tsx, each process compiles the workspace
 * sources again: about 3 s of CPU per start on this 2-core machine against
 * under 1 s for the bundle.
 */
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";
import { pathToFileURL } from "node:url";
import * as esbuild from "esbuild";

/** How {@link bundleForTests} treats the packages from the registry that the sources import. */
export interface BundleForTestsOptions {
  /**
   * `"external"` (the default): each import of a registry package stays an
   * import, of the absolute path it resolves to from the file that makes
   * it, and node loads the package's own files when the bundle runs.
   *
   * `"bundled"`: the packages' files are bundled too, resolved the way node
   * resolves them (from the importing file, the same versions), so a
   * process reads a few large files instead of resolving and reading
   * hundreds of small ones: a worker of agent-durable's tests loads in a
   * quarter of the CPU time. In the packages' files, `import.meta.url`,
   * `__dirname` and `__filename` stay those of the original file. A
   * `require()` of a module that cannot be resolved (an optional
   * dependency that is not installed, such as pg-native) throws node's
   * `MODULE_NOT_FOUND` error when it runs, as it would unbundled; an
   * `import` that cannot be resolved fails the bundle.
   */
  registryPackages?: "external" | "bundled";
}

/**
 * Bundles `entry` and the workspace sources it imports (resolved with the
 * `source` condition, as the tests' vitest configs resolve them) into ES
 * modules in `outDir`, and returns the path of the entry's module there
 * (`<outDir>/<entry's name>.mjs`). The bundle behaves like the sources
 * started with tsx:
 *
 * - packages from the registry are not bundled unless `options` says so
 *   (see {@link BundleForTestsOptions}): each import is resolved from the
 *   file that makes it and written as an absolute path, so the bundle loads
 *   exactly the files the sources would;
 * - `import.meta.url` in a bundled source file stays that file's URL, so
 *   paths a source builds from it (fixtures, sibling scripts) still point
 *   into the workspace;
 * - a dynamic `import()` stays lazy (a chunk of its own), so a run that
 *   never takes that path (`--help`) does not load it.
 *
 * Rejects with esbuild's error when a source does not compile or an import
 * cannot be resolved.
 */
export async function bundleForTests(
  entry: string,
  outDir: string,
  options: BundleForTestsOptions = {},
): Promise<string> {
  const bundled = options.registryPackages === "bundled";
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
    // Node reads a package's "main", never its "module" (esbuild's default for node takes either).
    mainFields: ["main"],
    logLevel: "warning",
    // The CommonJS packages of the bundle call `require` (node's built-in modules), which an ES module lacks.
    banner: bundled
      ? {
          js: 'import { createRequire as createRequireOfBundle } from "node:module"; const require = createRequireOfBundle(import.meta.url);',
        }
      : undefined,
    plugins: [bundled ? missingRequiresThrowWhenRun : registryPackagesStayExternal, originalFileLocations(bundled)],
  });
  return join(outDir, `${basename(entry, extname(entry))}.mjs`);
}

const registryPackagesStayExternal: esbuild.Plugin = {
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
};

const missingRequiresThrowWhenRun: esbuild.Plugin = {
  name: "missing-requires-throw-when-run",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.kind !== "require-call" || args.pluginData === "resolving") return undefined;
      const resolved = await build.resolve(args.path, {
        resolveDir: args.resolveDir,
        kind: args.kind,
        pluginData: "resolving",
      });
      if (resolved.errors.length === 0) return resolved;
      return { path: args.path, namespace: "missing-module", pluginData: args.importer };
    });
    build.onLoad({ filter: /.*/, namespace: "missing-module" }, (args) => {
      const message = `Cannot find module '${args.path}'\nRequire stack:\n- ${args.pluginData}`;
      return {
        contents: `throw Object.assign(new Error(${JSON.stringify(message)}), { code: "MODULE_NOT_FOUND" });`,
        loader: "js",
      };
    });
  },
};

/**
 * `import.meta.url` of each source file (and, with the registry packages
 * bundled, of each package file) stays that file's URL, and `__dirname` and
 * `__filename` of a CommonJS package file stay its own.
 */
function originalFileLocations(registryPackagesBundled: boolean): esbuild.Plugin {
  return {
    name: "original-file-locations",
    setup(build) {
      build.onLoad({ filter: /\.[cm]?ts$/ }, async (args) => {
        const source = await readFile(args.path, "utf8");
        const url = JSON.stringify(pathToFileURL(args.path).href);
        return { contents: source.replaceAll("import.meta.url", url), loader: "ts" };
      });
      if (!registryPackagesBundled) return;
      build.onLoad({ filter: /\.[cm]?js$/ }, async (args) => {
        const source = await readFile(args.path, "utf8");
        if (isCommonJs(args.path)) {
          if (!/\b__(dirname|filename)\b/.test(source)) return undefined;
          const locals = `var __filename = ${JSON.stringify(args.path)}, __dirname = ${JSON.stringify(dirname(args.path))};`;
          return { contents: `${locals}${source}`, loader: "js" };
        }
        if (!source.includes("import.meta.url")) return undefined;
        const url = JSON.stringify(pathToFileURL(args.path).href);
        return { contents: source.replaceAll("import.meta.url", url), loader: "js" };
      });
    },
  };
}

/** Whether node loads `file` as CommonJS: a `.cjs`, or a `.js` whose nearest package.json has no `"type": "module"`. */
function isCommonJs(file: string): boolean {
  if (file.endsWith(".cjs")) return true;
  if (file.endsWith(".mjs")) return false;
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, "utf8")).type !== "module";
    if (dirname(dir) === dir) return true;
  }
}
