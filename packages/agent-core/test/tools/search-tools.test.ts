import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigErrorCode } from "../../src/errors.js";
import { compileGlob } from "../../src/tools/builtin/glob-matcher.js";
import { createGlobTool } from "../../src/tools/builtin/glob-tool.js";
import { createGrepTool } from "../../src/tools/builtin/grep-tool.js";
import { makeSandbox, run, textOf } from "./fixtures.js";

let sandbox: Awaited<ReturnType<typeof makeSandbox>>;
async function put(relative: string, content: string | Buffer) {
  const file = path.join(sandbox.workspace, relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
}

beforeEach(async () => {
  sandbox = await makeSandbox();
  await put("src/index.ts", "export const answer = 42;\n// TODO: more\n");
  await put("src/util/strings.ts", "export function shout(s: string) {\n  return s.toUpperCase(); // TODO\n}\n");
  await put("src/util/strings.test.js", "test('shout')\n");
  await put("README.md", "# Demo\nTODO list\n");
  await put("node_modules/dep/index.ts", "// TODO in a dependency\n");
  await put(".git/HEAD", "TODO ref\n");
  await put("image.bin", Buffer.from([0x54, 0x4f, 0x44, 0x4f, 0, 1]));
  await writeFile(path.join(sandbox.outside, "leak.ts"), "TODO outside\n");
  await symlink(sandbox.outside, path.join(sandbox.workspace, "linked-out"));
});
afterEach(async () => {
  await sandbox.cleanup();
});

describe("compileGlob", () => {
  const matches = (pattern: string, p: string) => compileGlob(pattern).matches(p);
  it("matches the usual glob syntax on whole relative paths", () => {
    expect(matches("*.ts", "index.ts")).toBe(true);
    expect(matches("*.ts", "src/index.ts")).toBe(false);
    expect(matches("**/*.ts", "index.ts")).toBe(true);
    expect(matches("**/*.ts", "src/a/b.ts")).toBe(true);
    expect(matches("src/**", "src/a/b.ts")).toBe(true);
    expect(matches("src/**/b.ts", "src/b.ts")).toBe(true);
    expect(matches("src/*.{js,ts}", "src/x.js")).toBe(true);
    expect(matches("src/*.{js,ts}", "src/x.md")).toBe(false);
    expect(matches("file?.txt", "file1.txt")).toBe(true);
    expect(matches("file?.txt", "file/.txt")).toBe(false);
    expect(matches("[a-c]*.md", "b.md")).toBe(true);
    expect(matches("[!a-c]*.md", "b.md")).toBe(false);
    expect(matches("[!a-c]*.md", "d.md")).toBe(true);
    expect(matches("[^a-c]*.md", "b.md")).toBe(false);
    expect(matches("a.{x,{y,z}}", "a.z")).toBe(true);
    expect(matches("./src/*.ts", "src/i.ts")).toBe(true);
    expect(matches("a\\*b", "a*b")).toBe(true);
    expect(matches("a\\*b", "axb")).toBe(false);
  });

  it("reads an unbalanced brace or bracket literally, as bash does, and names an empty pattern", () => {
    expect(matches("src/{a,b", "src/{a,b")).toBe(true);
    expect(matches("src/{a,b", "src/a")).toBe(false);
    expect(matches("[abc", "[abc")).toBe(true);
    expect(() => compileGlob("")).toThrow('Invalid glob pattern "": Expected pattern to be a non-empty string');
  });

  it("tells a walk which folders cannot hold a match", () => {
    const topLevel = compileGlob("*.ts");
    expect(topLevel.mayMatchBelow("src")).toBe(false);
    const inSrc = compileGlob("src/lib/*.ts");
    expect(["src", "src/lib", "src/lib/deep", "test"].map((folder) => inSrc.mayMatchBelow(folder))).toEqual([
      true,
      true,
      false,
      false,
    ]);
    const anywhere = compileGlob("**/{a,b}/*.ts");
    expect(["x", "x/y/z/w"].map((folder) => anywhere.mayMatchBelow(folder))).toEqual([true, true]);
    expect(compileGlob("!(src)/*.ts").mayMatchBelow("lib")).toBe(true);
  });
});

describe("glob", () => {
  it("lists matching files in a stable order, skipping node_modules, .git and links", async () => {
    const result = await run(createGlobTool({ workspaceDir: sandbox.workspace }), { pattern: "**/*.ts" });
    expect(textOf(result)).toBe(["src/index.ts", "src/util/strings.ts"].join("\n"));
    expect(result.details).toEqual({ count: 2, truncated: false, ignoredPaths: 0 });
  });

  it("searches below path and returns workspace-relative paths", async () => {
    const result = await run(createGlobTool({ workspaceDir: sandbox.workspace }), {
      pattern: "*.{ts,js}",
      path: "src/util",
    });
    expect(textOf(result)).toBe("src/util/strings.test.js\nsrc/util/strings.ts");
  });

  it("bounds the result and notes the cut", async () => {
    const result = await run(createGlobTool({ workspaceDir: sandbox.workspace }), { pattern: "**", limit: 2 });
    expect(result.details).toEqual({ count: 2, truncated: true, ignoredPaths: 0 });
    expect(textOf(result)).toContain("[Showing the first 2 paths; more match.");
  });

  it("rejects a base path outside the workspace", async () => {
    await expect(
      run(createGlobTool({ workspaceDir: sandbox.workspace }), { pattern: "*", path: "../outside" }),
    ).rejects.toMatchObject({
      code: ConfigErrorCode.PathOutsideWorkspace,
    });
    await expect(
      run(createGlobTool({ workspaceDir: sandbox.workspace }), { pattern: "*", path: "linked-out" }),
    ).rejects.toMatchObject({
      code: ConfigErrorCode.PathOutsideWorkspace,
    });
  });
});

describe("grep", () => {
  it("finds lines by regex as path:line: text, skipping node_modules, .git, binaries and links", async () => {
    const result = await run(createGrepTool({ workspaceDir: sandbox.workspace }), { pattern: "TODO" });
    expect(textOf(result)).toBe(
      [
        "README.md:2: TODO list",
        "src/index.ts:2: // TODO: more",
        "src/util/strings.ts:2:   return s.toUpperCase(); // TODO",
      ].join("\n"),
    );
    expect(result.details).toMatchObject({ matches: 3, truncated: false, filesSkipped: 1 });
  });

  it("filters by glob and path, and matches case-insensitively on request", async () => {
    const grep = createGrepTool({ workspaceDir: sandbox.workspace });
    expect(textOf(await run(grep, { pattern: "todo", glob: "**/*.ts", ignoreCase: true }))).toBe(
      "src/index.ts:2: // TODO: more\nsrc/util/strings.ts:2:   return s.toUpperCase(); // TODO",
    );
    expect(textOf(await run(grep, { pattern: "shout", path: "src/util" }))).toBe(
      "src/util/strings.test.js:1: test('shout')\nsrc/util/strings.ts:1: export function shout(s: string) {",
    );
    expect(textOf(await run(grep, { pattern: "answer", path: "src/index.ts" }))).toBe(
      "src/index.ts:1: export const answer = 42;",
    );
  });

  it("bounds the matches and says more exist", async () => {
    await put("many.txt", Array.from({ length: 50 }, (_, i) => `hit ${i}`).join("\n"));
    const result = await run(createGrepTool({ workspaceDir: sandbox.workspace }), { pattern: "^hit", limit: 5 });
    expect(result.details).toMatchObject({ matches: 5, truncated: true });
    expect(textOf(result)).toContain("[Showing the first 5 matches; more exist.");
  });

  it("tests each line on its own: CRLF line ends, lookarounds at a line's edge, no line after the final newline", async () => {
    await put("lines/crlf.txt", "first foo\r\nsecond\r\n");
    await put("lines/lf.txt", "foo\n\nbar foo\n");
    const grep = createGrepTool({ workspaceDir: sandbox.workspace });
    const search = async (pattern: string) => textOf(await run(grep, { pattern, path: "lines" }));
    expect(await search("foo$")).toBe("lines/crlf.txt:1: first foo\nlines/lf.txt:1: foo\nlines/lf.txt:3: bar foo");
    expect(await search("foo(?!\\s)")).toBe(
      "lines/crlf.txt:1: first foo\nlines/lf.txt:1: foo\nlines/lf.txt:3: bar foo",
    );
    expect(await search("(?<!\\S)bar")).toBe("lines/lf.txt:3: bar foo");
    expect(await search("^$")).toBe("lines/lf.txt:2: ");
  });

  it("ends with the abort reason when the call is aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop now"));
    await expect(
      run(createGrepTool({ workspaceDir: sandbox.workspace }), { pattern: "TODO" }, { signal: controller.signal }),
    ).rejects.toThrow("stop now");
    await expect(
      run(createGlobTool({ workspaceDir: sandbox.workspace }), { pattern: "**" }, { signal: controller.signal }),
    ).rejects.toThrow("stop now");
  });

  it("stops reading files once the limit is passed", async () => {
    for (let i = 0; i < 60; i++) await put(`many/file-${String(i).padStart(2, "0")}.txt`, "hit\n");
    const result = await run(createGrepTool({ workspaceDir: sandbox.workspace }), {
      pattern: "^hit",
      path: "many",
      limit: 5,
    });
    expect(textOf(result).split("\n").slice(0, 5)).toEqual([0, 1, 2, 3, 4].map((i) => `many/file-0${i}.txt:1: hit`));
    // The sixth file holds the match past the limit; the other 54 are never searched.
    expect(result.details).toEqual({ matches: 5, filesSearched: 6, truncated: true, filesSkipped: 0, ignoredPaths: 0 });
  });

  it("reports no matches, an invalid regex, and paths outside", async () => {
    const grep = createGrepTool({ workspaceDir: sandbox.workspace });
    expect(textOf(await run(grep, { pattern: "nothing-like-this" }))).toMatch(
      /^No matches for "nothing-like-this" in \. \(\d+ files searched\)$/,
    );
    await expect(run(grep, { pattern: "(" })).rejects.toThrow(/Invalid regular expression "\("/);
    await expect(run(grep, { pattern: "TODO", path: "/etc" })).rejects.toMatchObject({
      code: ConfigErrorCode.PathOutsideWorkspace,
    });
  });
});
