import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGlobTool } from "../../src/tools/builtin/glob-tool.js";
import { createGrepTool } from "../../src/tools/builtin/grep-tool.js";
import { makeSandbox, run, textOf, writeTree } from "./fixtures.js";

let sandbox: Awaited<ReturnType<typeof makeSandbox>>;
beforeAll(async () => {
  sandbox = await makeSandbox();
  await writeTree(sandbox.workspace, {
    ".env": "",
    ".github/workflows/ci.yml": "",
    "README.md": "",
    "file1.txt": "",
    "file2.txt": "",
    "file10.txt": "",
    "src/.hidden.ts": "",
    "src/app.js": "",
    "src/app.test.ts": "",
    "src/app.ts": "",
    "src/lib/deep/util.ts": "",
    "src/lib/util.jsx": "",
    "src/lib/util.ts": "",
    "test/app.spec.ts": "",
  });
});
afterAll(async () => {
  await sandbox.cleanup();
});

async function glob(pattern: string, path?: string): Promise<string[]> {
  const text = textOf(
    await run(createGlobTool({ workspaceDir: sandbox.workspace }), { pattern, ...(path && { path }) }),
  );
  return text.startsWith("No files match") ? [] : text.split("\n");
}

describe("glob patterns", () => {
  it("expands braces, nested braces and numeric ranges", async () => {
    expect(await glob("src/*.{js,ts}")).toEqual(["src/.hidden.ts", "src/app.js", "src/app.test.ts", "src/app.ts"]);
    expect(await glob("{src,test}/**/*.{spec,test}.ts")).toEqual(["src/app.test.ts", "test/app.spec.ts"]);
    expect(await glob("src/lib/util.{ts,js{,x}}")).toEqual(["src/lib/util.jsx", "src/lib/util.ts"]);
    expect(await glob("file{1..2}.txt")).toEqual(["file1.txt", "file2.txt"]);
  });

  it("understands extglobs", async () => {
    expect(await glob("src/!(*.test).ts")).toEqual(["src/.hidden.ts", "src/app.ts"]);
    expect(await glob("**/*.@(js|jsx)")).toEqual(["src/app.js", "src/lib/util.jsx"]);
    expect(await glob("file+([0-9]).txt")).toEqual(["file1.txt", "file10.txt", "file2.txt"]);
    expect(await glob("src/app?(.test).ts")).toEqual(["src/app.test.ts", "src/app.ts"]);
  });

  it("understands character classes, negated ones and POSIX names", async () => {
    expect(await glob("file[0-9].txt")).toEqual(["file1.txt", "file2.txt"]);
    expect(await glob("file[!1].txt")).toEqual(["file2.txt"]);
    expect(await glob("file[[:digit:]][[:digit:]].txt")).toEqual(["file10.txt"]);
  });

  it("matches dot files and dot folders like any other name, since hidden files are walked", async () => {
    expect(await glob("*")).toEqual([".env", "README.md", "file1.txt", "file10.txt", "file2.txt"]);
    expect(await glob("**/*.yml")).toEqual([".github/workflows/ci.yml"]);
    expect(await glob("**/.*")).toEqual([".env", "src/.hidden.ts"]);
    expect(await glob("*.ts", "src")).toEqual(["src/.hidden.ts", "src/app.test.ts", "src/app.ts"]);
  });

  it("matches top-level names only without a slash, every depth with **", async () => {
    expect(await glob("*.ts")).toEqual([]);
    expect(await glob("src/lib/*.ts")).toEqual(["src/lib/util.ts"]);
    // A folder's files come before its subfolders.
    expect(await glob("src/**/util.ts")).toEqual(["src/lib/util.ts", "src/lib/deep/util.ts"]);
  });

  it("filters grep with the same syntax", async () => {
    await writeTree(sandbox.workspace, { "notes/a.md": "word\n", "notes/b.txt": "word\n", "notes/c.mdx": "word\n" });
    const grep = createGrepTool({ workspaceDir: sandbox.workspace });
    expect(textOf(await run(grep, { pattern: "word", glob: "notes/*.{md,txt}" }))).toBe(
      "notes/a.md:1: word\nnotes/b.txt:1: word",
    );
    expect(textOf(await run(grep, { pattern: "word", glob: "**/!(*.md)" }))).toBe(
      "notes/b.txt:1: word\nnotes/c.mdx:1: word",
    );
  });
});
