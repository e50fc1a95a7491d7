/**
 * The public-surface lister on a small entry under `fixtures/`: values and
 * types come out in separate sorted lists, type-only re-exports of values
 * count as types only, and the README reader takes names from `## API` only.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { listPublicNames, listPublicSurface, listReadmeApiNames } from "../public-surface.js";

const fixture = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "public-surface");

describe("public surface", () => {
  it("splits an entry's exports into values and types, following re-exports", () => {
    expect(listPublicSurface(join(fixture, "index.ts"))).toEqual({
      values: ["LIMIT", "Mode", "Runner", "everything"],
      types: ["Mode", "Options", "Runner", "run"],
    });
  }, 120_000);

  it("classifies names re-exported from an installed package too (read only when an entry has such names)", () => {
    expect(listPublicSurface(join(fixture, "installed.ts"))).toEqual({
      values: ["LIMIT", "createProgram"],
      types: ["CompilerOptions"],
    });
  }, 120_000);

  it("lists every exported name once, values and types together", () => {
    expect(listPublicNames(join(fixture, "index.ts"))).toEqual([
      "LIMIT",
      "Mode",
      "Options",
      "Runner",
      "everything",
      "run",
    ]);
  }, 120_000);

  it("reads the names of a README's API section, type arguments included, not members, strings or other sections", () => {
    expect(listReadmeApiNames(join(fixture, "README.md"))).toEqual([
      "Array",
      "LIMIT",
      "Mode",
      "Options",
      "Promise",
      "Runner",
      "everything",
      "run",
    ]);
  });
});
