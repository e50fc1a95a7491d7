import { readdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The workspace packages the bench imports, each with the file its `import` condition resolves to. */
const MEASURED = ["@turnkit/protocol", "@turnkit/agent-loop", "@turnkit/agent-core", "@turnkit/agent-durable"] as const;

/** What the bench measures: the packages' published build (`dist/`), or their TypeScript sources through tsx. */
export type MeasuredCode = "build" | "source";

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Which code the bench imports, checked before anything is timed. Run as
 * `pnpm bench`, it imports each package's `dist/` build, the JavaScript a
 * host installs (and the form pi-agent-core is measured in); that build
 * must be newer than every file of the package's `src/`, or this throws an
 * error naming the stale package and the command that rebuilds it. Run
 * with `--conditions=source` (`pnpm bench:source`), it imports the sources
 * through tsx, whose `keepNames` wraps every closure our code creates in a
 * naming call that neither the build nor pi pays: useful for profiles that
 * point at `.ts` lines, not for ratios.
 */
export function checkMeasuredCode(): MeasuredCode {
  let mode: MeasuredCode | undefined;
  for (const name of MEASURED) {
    const entry = fileURLToPath(import.meta.resolve(name));
    const isSource = entry.endsWith(".ts");
    mode ??= isSource ? "source" : "build";
    if (isSource) continue;
    const packageDir = entry.slice(0, entry.lastIndexOf("/dist/"));
    const built = statSync(entry, { throwIfNoEntry: false })?.mtimeMs;
    if (built === undefined)
      throw new Error(`${name} has no build at ${entry}: run \`pnpm build\` at the repository root (pnpm bench does)`);
    if (newestMtime(`${packageDir}/src`) > built)
      throw new Error(
        `${name}'s build is older than its sources: run \`pnpm build\` at the repository root (pnpm bench does)`,
      );
  }
  return mode ?? "build";
}
