/**
 * The public-surface test every package runs: its entry exports exactly the
 * expected values and types, and its README section names exactly those.
 * A package's test file only calls `describePublicSurface` with its lists.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type PublicSurface, listPublicSurface, listReadmeApiNames } from "./public-surface.js";

/** What one entry point must export, and where its README lists it. */
export interface PublicSurfaceExpectation extends PublicSurface {
  /** The import specifier, for test names (`@turnkit/agent-loop/testing`). */
  specifier: string;
  /** The entry's `index.ts`. */
  entry: URL;
  /** The package README. */
  readme: URL;
  /** The README heading whose section lists the names; default `## API`. */
  readmeHeading?: string;
  /** Names from elsewhere the section mentions in backticks (`Promise`, another package's `RunTurnInput`). */
  readmeAlsoMentions?: readonly string[];
}

/** Compiling an entry takes a few seconds on a loaded machine. */
const COMPILE_TIMEOUT_MS = 60_000;

/**
 * Declares the two tests. They fail when a name is added to or removed from
 * the entry, or turns from a value into a type-only export (or back),
 * without the expected lists changing with it, and when the README section
 * drifts from the entry.
 */
export function describePublicSurface(expected: PublicSurfaceExpectation): void {
  let surface: PublicSurface | undefined;
  const actual = () => (surface ??= listPublicSurface(fileURLToPath(expected.entry)));
  describe(`public surface of ${expected.specifier}`, () => {
    it(
      "exports exactly the expected values and types",
      () => {
        expect(actual()).toEqual({ values: [...expected.values].sort(), types: [...expected.types].sort() });
      },
      COMPILE_TIMEOUT_MS,
    );

    it(
      `the README's "${expected.readmeHeading ?? "## API"}" section names exactly the exported names`,
      () => {
        const { values, types } = actual();
        const mentioned = listReadmeApiNames(fileURLToPath(expected.readme), expected.readmeHeading);
        const others = new Set(expected.readmeAlsoMentions ?? []);
        expect(mentioned.filter((name) => !others.has(name))).toEqual([...new Set([...values, ...types])].sort());
      },
      COMPILE_TIMEOUT_MS,
    );
  });
}
