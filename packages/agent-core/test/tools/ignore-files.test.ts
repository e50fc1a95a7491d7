import { execFileSync } from "node:child_process";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGlobTool } from "../../src/tools/builtin/glob-tool.js";
import { createGrepTool } from "../../src/tools/builtin/grep-tool.js";
import { makeSandbox, run, textOf, writeTree } from "./fixtures.js";

let sandbox: Awaited<ReturnType<typeof makeSandbox>>;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

/** Every file holds the word `needle`, so grep and glob must return the same paths. */
const REPOSITORY: Record<string, string> = {
  ".git/HEAD": "ref: refs/heads/main\n",
  ".git/info/exclude": "# local to this clone\nsecret.txt\n",
  ".gitignore": [
    "# build output",
    "dist/",
    "!dist/keep.js",
    "*.log",
    "!keep.log",
    "/root-only.txt",
    "build/*",
    "!build/keep.js",
    "docs/**/draft-*.md",
    "vendor/",
    "",
  ].join("\n"),
  ".ignore": "scratch/\n",
  ".env": "needle\n",
  "build/keep.js": "needle\n",
  "build/out.js": "needle\n",
  "dist/bundle.js": "needle\n",
  "dist/keep.js": "needle\n",
  "docs/guide/draft-1.md": "needle\n",
  "docs/guide/final.md": "needle\n",
  "node_modules/dep/index.js": "needle\n",
  "packages/app/generated/g.ts": "needle\n",
  "packages/lib/.gitignore": "generated/\n!important.log\n/local.txt\n!vendor/\n",
  "packages/lib/generated/g.ts": "needle\n",
  "packages/lib/important.log": "needle\n",
  "packages/lib/index.ts": "needle\n",
  "packages/lib/local.txt": "needle\n",
  "packages/lib/other.log": "needle\n",
  "packages/lib/sub/local.txt": "needle\n",
  "packages/lib/vendor/v.ts": "needle\n",
  "root-only.txt": "needle\n",
  "scratch/notes.txt": "needle\n",
  "secret.txt": "needle\n",
  "src/a.log": "needle\n",
  "src/a.ts": "needle\n",
  "src/dist": "needle\n",
  "src/keep.log": "needle\n",
  "src/out/dist/x.js": "needle\n",
  "src/root-only.txt": "needle\n",
  "src/secret.txt": "needle\n",
  "vendor/v.ts": "needle\n",
};

/** What the walk returns for {@link REPOSITORY}, in its order. */
const KEPT = [
  ".env",
  ".gitignore", // holds no needle
  ".ignore", // holds no needle
  "build/keep.js", // `build/*` ignores the files, `!build/keep.js` takes one back
  "docs/guide/final.md", // `docs/**/draft-*.md` takes the draft only
  "packages/app/generated/g.ts", // `generated/` is packages/lib's rule, not the app's
  "packages/lib/.gitignore", // holds no needle
  "packages/lib/important.log", // the nested `!important.log` beats the root's `*.log`
  "packages/lib/index.ts",
  "packages/lib/sub/local.txt", // `/local.txt` is anchored to packages/lib
  "packages/lib/vendor/v.ts", // the nested `!vendor/` re-includes the folder the root's `vendor/` ignores
  "src/a.ts",
  "src/dist", // `dist/` matches folders only
  "src/keep.log", // `!keep.log`
  "src/root-only.txt", // `/root-only.txt` is anchored to the root
];
const WITH_NEEDLE = KEPT.filter((file) => !file.endsWith(".gitignore") && !file.endsWith(".ignore"));

describe("ignore files in a git repository", () => {
  it("glob skips what nested .gitignore files, .git/info/exclude and .ignore hide, with git's negation, anchoring and folder rules", async () => {
    await writeTree(sandbox.workspace, REPOSITORY);
    const result = await run(createGlobTool({ workspaceDir: sandbox.workspace }), { pattern: "**" });
    expect(textOf(result).split("\n")).toEqual(KEPT);
    // root-only.txt, secret.txt, dist/, scratch/, vendor/, build/out.js, docs/guide/draft-1.md,
    // packages/lib/{generated/, local.txt, other.log}, src/{a.log, secret.txt}, src/out/dist/.
    expect(result.details).toEqual({ count: KEPT.length, truncated: false, ignoredPaths: 13 });
  });

  it("grep searches exactly the files glob lists", async () => {
    await writeTree(sandbox.workspace, REPOSITORY);
    const result = await run(createGrepTool({ workspaceDir: sandbox.workspace }), { pattern: "needle" });
    expect(textOf(result).split("\n")).toEqual(WITH_NEEDLE.map((file) => `${file}:1: needle`));
    expect(result.details).toEqual({
      matches: WITH_NEEDLE.length,
      filesSearched: KEPT.length,
      truncated: false,
      filesSkipped: 0,
      ignoredPaths: 13,
    });
  });

  it("includeIgnored returns the ignored files too, but still never node_modules or .git", async () => {
    await writeTree(sandbox.workspace, REPOSITORY);
    const glob = createGlobTool({ workspaceDir: sandbox.workspace });
    expect(textOf(await run(glob, { pattern: "**/*.log" })).split("\n")).toEqual([
      "packages/lib/important.log",
      "src/keep.log",
    ]);
    const all = await run(glob, { pattern: "**/*.{log,js}", includeIgnored: true });
    expect(textOf(all).split("\n")).toEqual([
      "build/keep.js",
      "build/out.js",
      "dist/bundle.js",
      "dist/keep.js",
      "packages/lib/important.log",
      "packages/lib/other.log",
      "src/a.log",
      "src/keep.log",
      "src/out/dist/x.js",
    ]);
    expect(all.details).toEqual({ count: 9, truncated: false, ignoredPaths: 0 });
    const grep = await run(createGrepTool({ workspaceDir: sandbox.workspace }), {
      pattern: "needle",
      glob: "{dist,scratch}/**",
      includeIgnored: true,
    });
    expect(textOf(grep)).toBe("dist/bundle.js:1: needle\ndist/keep.js:1: needle\nscratch/notes.txt:1: needle");
  });

  it("says when ignored paths hid every match, and how to include them", async () => {
    await writeTree(sandbox.workspace, REPOSITORY);
    const glob = await run(createGlobTool({ workspaceDir: sandbox.workspace }), { pattern: "dist/*.js" });
    expect(textOf(glob)).toBe(
      'No files match "dist/*.js" in .\n\n[1 ignored path was skipped (.gitignore, .ignore or .git/info/exclude); pass includeIgnored: true to search them.]',
    );
    const grep = await run(createGrepTool({ workspaceDir: sandbox.workspace }), {
      pattern: "needle",
      glob: "**/*.log",
      path: "packages/lib",
    });
    expect(textOf(grep)).toBe("packages/lib/important.log:1: needle");
    const none = await run(createGrepTool({ workspaceDir: sandbox.workspace }), {
      pattern: "needle",
      glob: "other.log",
      path: "packages/lib",
    });
    expect(textOf(none)).toBe(
      'No matches for "needle" in packages/lib (0 files searched)\n\n[1 ignored path was skipped (.gitignore, .ignore or .git/info/exclude); pass includeIgnored: true to search them.]',
    );
  });

  it("a .ignore file beats the .gitignore of its folder", async () => {
    await writeTree(sandbox.workspace, {
      ".git/HEAD": "",
      ".gitignore": "*.tmp\n",
      ".ignore": "!wanted.tmp\nnoise.txt\n",
      "wanted.tmp": "",
      "other.tmp": "",
      "noise.txt": "",
      "kept.txt": "",
    });
    const result = await run(createGlobTool({ workspaceDir: sandbox.workspace }), { pattern: "*" });
    expect(textOf(result).split("\n")).toEqual([".gitignore", ".ignore", "kept.txt", "wanted.tmp"]);
  });

  it("searches a path the call names even when it is ignored", async () => {
    await writeTree(sandbox.workspace, REPOSITORY);
    const glob = await run(createGlobTool({ workspaceDir: sandbox.workspace }), { pattern: "**", path: "dist" });
    expect(textOf(glob)).toBe("dist/bundle.js\ndist/keep.js");
    const grep = createGrepTool({ workspaceDir: sandbox.workspace });
    expect(textOf(await run(grep, { pattern: "needle", path: "packages/lib/other.log" }))).toBe(
      "packages/lib/other.log:1: needle",
    );
    // A folder that is not ignored itself keeps the rules of the folders above it.
    expect(textOf(await run(grep, { pattern: "needle", path: "packages/lib" })).split("\n")).toEqual(
      [
        "packages/lib/important.log",
        "packages/lib/index.ts",
        "packages/lib/sub/local.txt",
        "packages/lib/vendor/v.ts",
      ].map((file) => `${file}:1: needle`),
    );
  });

  it("reads the ignore files above a workspace that is a folder inside a repository", async () => {
    await writeTree(sandbox.base, {
      ".git/info/exclude": "*.bak\n",
      ".gitignore": "workspace/generated/\n*.log\n",
      "workspace/.gitignore": "/local/\n",
      "workspace/a.ts": "",
      "workspace/a.log": "",
      "workspace/a.bak": "",
      "workspace/generated/g.ts": "",
      "workspace/local/l.ts": "",
      "workspace/src/local/l.ts": "",
    });
    const result = await run(createGlobTool({ workspaceDir: sandbox.workspace }), { pattern: "**" });
    expect(textOf(result).split("\n")).toEqual([".gitignore", "a.ts", "src/local/l.ts"]);
  });

  it("takes folder names with glob characters, # or ! literally when it applies their nested rules", async () => {
    await writeTree(sandbox.workspace, {
      ".git/HEAD": "",
      "a[1]*/.gitignore": "*.tmp\n",
      "a[1]*/x.tmp": "",
      "a1b/x.tmp": "",
      "#notes/.gitignore": "*.tmp\n!keep.tmp\n",
      "#notes/keep.tmp": "",
      "#notes/x.tmp": "",
      "!bang/.gitignore": "/x.tmp\n",
      "!bang/x.tmp": "",
      "!bang/y.tmp": "",
    });
    const result = await run(createGlobTool({ workspaceDir: sandbox.workspace }), { pattern: "**/*.tmp" });
    expect(textOf(result).split("\n")).toEqual(["!bang/y.tmp", "#notes/keep.tmp", "a1b/x.tmp"]);
  });

  it("a repository nested in another follows its own rules only", async () => {
    await writeTree(sandbox.workspace, {
      ".git/HEAD": "",
      ".gitignore": "*.log\nignored-repo/\n",
      "a.log": "",
      "ignored-repo/.git/HEAD": "",
      "ignored-repo/x.ts": "",
      "nested/.git/HEAD": "",
      "nested/.gitignore": "*.tmp\n",
      "nested/kept.log": "",
      "nested/dropped.tmp": "",
    });
    const result = await run(createGlobTool({ workspaceDir: sandbox.workspace }), { pattern: "**" });
    expect(textOf(result).split("\n")).toEqual([".gitignore", "nested/.gitignore", "nested/kept.log"]);
  });

  it("reads info/exclude from the common git folder of a worktree whose .git is a file", async () => {
    await writeTree(sandbox.base, {
      "main-repo/.git/info/exclude": "*.secret\n",
      "main-repo/.git/worktrees/wt/commondir": "../..\n",
    });
    await writeTree(sandbox.workspace, {
      ".git": `gitdir: ${path.join(sandbox.base, "main-repo/.git/worktrees/wt")}\n`,
      "a.ts": "",
      "b.secret": "",
    });
    const result = await run(createGlobTool({ workspaceDir: sandbox.workspace }), { pattern: "**" });
    expect(textOf(result)).toBe("a.ts");
  });
});

describe("ignore files outside a git repository", () => {
  it("are not read: every file is walked, as before", async () => {
    const { ".git/HEAD": _head, ".git/info/exclude": _exclude, ...tree } = REPOSITORY;
    await writeTree(sandbox.workspace, tree);
    const result = await run(createGlobTool({ workspaceDir: sandbox.workspace }), { pattern: "**" });
    const everything = Object.keys(tree).filter((file) => !file.startsWith("node_modules/"));
    expect(textOf(result).split("\n").sort()).toEqual(everything.sort());
    expect(result.details).toMatchObject({ ignoredPaths: 0 });
  });
});

describe("agreement with git", () => {
  it("lists the same files as git ls-files --others --exclude-standard", async () => {
    const {
      ".git/HEAD": _head,
      ".git/info/exclude": exclude,
      ".ignore": _ignore,
      "node_modules/dep/index.js": _dependency,
      ...tree
    } = REPOSITORY;
    execFileSync("git", ["init", "--quiet", sandbox.workspace]);
    await writeTree(sandbox.workspace, { ...tree, ".git/info/exclude": exclude! });
    const fromGit = execFileSync("git", ["ls-files", "--others", "--exclude-standard"], {
      cwd: sandbox.workspace,
      encoding: "utf8",
    })
      .trim()
      .split("\n");
    const result = await run(createGlobTool({ workspaceDir: sandbox.workspace }), { pattern: "**" });
    expect(textOf(result).split("\n").sort()).toEqual(fromGit.sort());
    // Without the .ignore file, scratch/ is back.
    expect(fromGit).toContain("scratch/notes.txt");
  });
});
