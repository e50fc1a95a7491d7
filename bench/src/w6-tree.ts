import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Packages in the generated tree; each holds {@link FILES_PER_PACKAGE} files. */
const PACKAGES = 40;

/** Per package: 375 files searched, 125 hidden by the root `.gitignore` (a quarter). */
const LAYOUT = [
  { folder: "src/mod-{i10}", name: "file-{i}.ts", count: 300, ignored: false },
  { folder: "test", name: "case-{i}.test.ts", count: 50, ignored: false },
  { folder: "docs", name: "page-{i}.md", count: 10, ignored: false },
  { folder: "fixtures", name: "data-{i}.json", count: 15, ignored: false },
  { folder: "dist", name: "chunk-{i}.js", count: 100, ignored: true },
  { folder: "coverage", name: "cov-{i}.json", count: 20, ignored: true },
  { folder: ".", name: "build-{i}.log", count: 5, ignored: true },
] as const;

const FILES_PER_PACKAGE = LAYOUT.reduce((sum, part) => sum + part.count, 0);

/** The root `.gitignore`: what the baselines exclude by hand with the same meaning. */
export const TREE_GITIGNORE = "dist/\ncoverage/\n*.log\n";

/** The word grep looks for: on one line of every 400th file, searched or ignored alike. */
export const TREE_NEEDLE = "findMeAcrossTheTree";

/** What {@link generateTree} wrote. */
export interface GeneratedTree {
  root: string;
  files: number;
  /** Files the root `.gitignore` hides. */
  ignoredFiles: number;
  /** Lines holding {@link TREE_NEEDLE} in files that are not ignored. */
  needleLines: number;
  /** Files named `*.md` (none ignored). */
  markdownFiles: number;
}

const WORDS = [
  "request",
  "response",
  "session",
  "turn",
  "event",
  "handler",
  "stream",
  "buffer",
  "config",
  "result",
  "message",
  "tool",
  "model",
  "signal",
  "queue",
];

/** A deterministic pseudo-random sequence (mulberry32), so every run writes the same tree. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 20 to 60 lines of TypeScript-like text (about 1.5 KB on average). */
function sourceText(next: () => number, needle: boolean): string {
  const word = () => WORDS[Math.floor(next() * WORDS.length)]!;
  const lines = [`import { ${word()}, ${word()} } from "./${word()}.js";`, ""];
  const count = 20 + Math.floor(next() * 40);
  for (let i = 0; i < count; i++) {
    const indent = "  ".repeat(Math.floor(next() * 3));
    lines.push(
      `${indent}const ${word()}${i} = ${word()}.${word()}(${word()}, ${Math.floor(next() * 1000)}); // ${word()} ${word()}`,
    );
  }
  if (needle)
    lines.splice(1 + Math.floor(next() * (lines.length - 1)), 0, `  // ${TREE_NEEDLE}: the line grep must find`);
  return `${lines.join("\n")}\n`;
}

/**
 * Writes a repository-shaped tree of 20,000 files below `root`: 40 packages
 * with sources, tests, docs and fixtures, plus build output, coverage and
 * logs that a root `.gitignore` hides (a quarter of the files), and a
 * `.git` folder so the tools treat it as a repository.
 */
export function generateTree(root: string): GeneratedTree {
  const next = random(20_000);
  mkdirSync(path.join(root, ".git"), { recursive: true });
  writeFileSync(path.join(root, ".git", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(path.join(root, ".gitignore"), TREE_GITIGNORE);
  const tree: GeneratedTree = { root, files: 0, ignoredFiles: 0, needleLines: 0, markdownFiles: 0 };
  const made = new Set<string>();
  for (let p = 0; p < PACKAGES; p++) {
    const packageDir = path.join(root, "packages", `pkg-${String(p).padStart(2, "0")}`);
    for (const part of LAYOUT) {
      for (let i = 0; i < part.count; i++) {
        const folder = path.join(packageDir, part.folder.replace("{i10}", String(i % 10)));
        if (!made.has(folder)) mkdirSync(folder, { recursive: true });
        made.add(folder);
        const needle = tree.files % 400 === 0;
        writeFileSync(
          path.join(folder, part.name.replace("{i}", String(i).padStart(3, "0"))),
          sourceText(next, needle),
        );
        tree.files++;
        if (part.ignored) tree.ignoredFiles++;
        else if (needle) tree.needleLines++;
        if (part.name.endsWith(".md")) tree.markdownFiles++;
      }
    }
  }
  if (tree.files !== PACKAGES * FILES_PER_PACKAGE)
    throw new Error(`generated ${tree.files} files, expected ${PACKAGES * FILES_PER_PACKAGE}`);
  return tree;
}
