import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const WORKER_SCRIPT = fileURLToPath(new URL("./worker-process.ts", import.meta.url));

/**
 * Bundles the test worker (`worker-process.ts` and the workspace sources it
 * imports, resolved with the `source` condition) into one ES module in
 * `outDir`, so that each worker process starts with plain `node` instead of
 * compiling TypeScript through tsx's loader: a third of the CPU and of the
 * time per start on a loaded 2-core machine. Packages from the registry are
 * not bundled: each import is resolved from the file that makes it and
 * written as an absolute path, so the bundle loads exactly the files the
 * sources would.
 */
export async function bundleWorker(outDir: string): Promise<string> {
  const outfile = join(outDir, "worker-process.mjs");
  await esbuild.build({
    entryPoints: [WORKER_SCRIPT],
    outfile,
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
    ],
  });
  return outfile;
}
