import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigErrorCode } from "../../src/errors.js";
import { globToRegExp } from "../../src/tools/builtin/glob-pattern.js";
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

describe("globToRegExp", () => {
  const matches = (pattern: string, p: string) => globToRegExp(pattern).test(p);
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
    expect(matches("a.{x,{y,z}}", "a.z")).toBe(true);
    expect(matches("./src/*.ts", "src/i.ts")).toBe(true);
    expect(matches("a\\*b", "a*b")).toBe(true);
    expect(matches("a\\*b", "axb")).toBe(false);
  });
  it("names an unbalanced pattern", () => {
    expect(() => globToRegExp("src/{a,b")).toThrow(/Unclosed "\{"/);
    expect(() => globToRegExp("[abc")).toThrow(/Unclosed "\["/);
  });
});

describe("glob", () => {
  it("lists matching files in a stable order, skipping node_modules, .git and links", async () => {
    const result = await run(createGlobTool({ workspaceDir: sandbox.workspace }), { pattern: "**/*.ts" });
    expect(textOf(result)).toBe(["src/index.ts", "src/util/strings.ts"].join("\n"));
    expect(result.details).toEqual({ count: 2, truncated: false });
  });

  it("searches below path and returns workspace-relative paths", async () => {
    const result = await run(createGlobTool({ workspaceDir: sandbox.workspace }), { pattern: "*.{ts,js}", path: "src/util" });
    expect(textOf(result)).toBe("src/util/strings.test.js\nsrc/util/strings.ts");
  });

  it("bounds the result and notes the cut", async () => {
    const result = await run(createGlobTool({ workspaceDir: sandbox.workspace }), { pattern: "**", limit: 2 });
    expect(result.details).toEqual({ count: 2, truncated: true });
    expect(textOf(result)).toContain("[Showing the first 2 paths; more match.");
  });

  it("rejects a base path outside the workspace", async () => {
    await expect(run(createGlobTool({ workspaceDir: sandbox.workspace }), { pattern: "*", path: "../outside" })).rejects.toMatchObject({
      code: ConfigErrorCode.PathOutsideWorkspace,
    });
    await expect(run(createGlobTool({ workspaceDir: sandbox.workspace }), { pattern: "*", path: "linked-out" })).rejects.toMatchObject({
      code: ConfigErrorCode.PathOutsideWorkspace,
    });
  });
});

describe("grep", () => {
  it("finds lines by regex as path:line: text, skipping node_modules, .git, binaries and links", async () => {
    const result = await run(createGrepTool({ workspaceDir: sandbox.workspace }), { pattern: "TODO" });
    expect(textOf(result)).toBe(["README.md:2: TODO list", "src/index.ts:2: // TODO: more", "src/util/strings.ts:2:   return s.toUpperCase(); // TODO"].join("\n"));
    expect(result.details).toMatchObject({ matches: 3, truncated: false, filesSkipped: 1 });
  });

  it("filters by glob and path, and matches case-insensitively on request", async () => {
    const grep = createGrepTool({ workspaceDir: sandbox.workspace });
    expect(textOf(await run(grep, { pattern: "todo", glob: "**/*.ts", ignoreCase: true }))).toBe(
      "src/index.ts:2: // TODO: more\nsrc/util/strings.ts:2:   return s.toUpperCase(); // TODO",
    );
    expect(textOf(await run(grep, { pattern: "shout", path: "src/util" }))).toBe("src/util/strings.test.js:1: test('shout')\nsrc/util/strings.ts:1: export function shout(s: string) {");
    expect(textOf(await run(grep, { pattern: "answer", path: "src/index.ts" }))).toBe("src/index.ts:1: export const answer = 42;");
  });

  it("bounds the matches and says more exist", async () => {
    await put("many.txt", Array.from({ length: 50 }, (_, i) => `hit ${i}`).join("\n"));
    const result = await run(createGrepTool({ workspaceDir: sandbox.workspace }), { pattern: "^hit", limit: 5 });
    expect(result.details).toMatchObject({ matches: 5, truncated: true });
    expect(textOf(result)).toContain("[Showing the first 5 matches; more exist.");
  });

  it("reports no matches, an invalid regex, and paths outside", async () => {
    const grep = createGrepTool({ workspaceDir: sandbox.workspace });
    expect(textOf(await run(grep, { pattern: "nothing-like-this" }))).toMatch(/^No matches for "nothing-like-this" in \. \(\d+ files searched\)$/);
    await expect(run(grep, { pattern: "(" })).rejects.toThrow(/Invalid regular expression "\("/);
    await expect(run(grep, { pattern: "TODO", path: "/etc" })).rejects.toMatchObject({ code: ConfigErrorCode.PathOutsideWorkspace });
  });
});
