import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigErrorCode, TurnkitConfigError } from "../../src/errors.js";
import { createBuiltinTools } from "../../src/tools/builtin/builtin-tools.js";
import { createEditTool } from "../../src/tools/builtin/edit-tool.js";
import { createReadTool } from "../../src/tools/builtin/read-tool.js";
import { TURN_DEFAULTS } from "../../src/defaults.js";
import { createWriteTool } from "../../src/tools/builtin/write-tool.js";
import { resolveWorkspacePath } from "../../src/tools/builtin/workspace-path.js";
import { makeSandbox, run, textOf } from "./fixtures.js";

let sandbox: Awaited<ReturnType<typeof makeSandbox>>;
beforeEach(async () => {
  sandbox = await makeSandbox();
  await writeFile(path.join(sandbox.outside, "secret.txt"), "top secret");
});
afterEach(async () => {
  await sandbox.cleanup();
});

async function expectOutside(promise: Promise<unknown>): Promise<TurnkitConfigError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(TurnkitConfigError.isInstance(error)).toBe(true);
  expect((error as TurnkitConfigError).code).toBe(ConfigErrorCode.PathOutsideWorkspace);
  expect((error as Error).message).toMatch(/outside the workspace/);
  return error as TurnkitConfigError;
}

describe("workspace confinement", () => {
  it("rejects .., absolute paths outside, and symlinks leading out (file, directory, dangling)", async () => {
    const { workspace, outside } = sandbox;
    await symlink(path.join(outside, "secret.txt"), path.join(workspace, "link-to-secret"));
    await symlink(outside, path.join(workspace, "link-dir"));
    await symlink(path.join(outside, "not-yet.txt"), path.join(workspace, "dangling"));
    const read = createReadTool({ workspaceDir: workspace });
    const write = createWriteTool({ workspaceDir: workspace });
    const edit = createEditTool({ workspaceDir: workspace });

    await expectOutside(run(read, { path: "../outside/secret.txt" }));
    await expectOutside(run(read, { path: "../x" }));
    await expectOutside(run(read, { path: "/etc/passwd" }));
    await expectOutside(run(read, { path: "link-to-secret" }));
    await expectOutside(run(read, { path: "link-dir/secret.txt" }));
    await expectOutside(run(write, { path: "link-dir/new.txt", content: "x" }));
    await expectOutside(run(write, { path: "dangling", content: "escaped" }));
    await expectOutside(run(write, { path: "sub/../../outside/evil.txt", content: "x" }));
    await expectOutside(run(edit, { path: "link-to-secret", oldText: "top", newText: "no" }));

    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("top secret");
    await expect(readFile(path.join(outside, "not-yet.txt"), "utf8")).rejects.toThrow();
    await expect(readFile(path.join(outside, "new.txt"), "utf8")).rejects.toThrow();
  });

  it("accepts absolute paths inside, links that stay inside, and names starting with two dots", async () => {
    const { workspace } = sandbox;
    await writeFile(path.join(workspace, "real.txt"), "inside");
    await symlink(path.join(workspace, "real.txt"), path.join(workspace, "alias.txt"));
    await writeFile(path.join(workspace, "..dots"), "fine");
    const read = createReadTool({ workspaceDir: workspace });
    expect(textOf(await run(read, { path: path.join(workspace, "real.txt") }))).toBe("inside");
    expect(textOf(await run(read, { path: "alias.txt" }))).toBe("inside");
    expect(textOf(await run(read, { path: "..dots" }))).toBe("fine");
    expect((await resolveWorkspacePath(workspace, "a/b/../c.txt")).relative).toBe(path.join("a", "c.txt"));
  });
});

describe("read", () => {
  it("returns the text of a file, with details", async () => {
    await writeFile(path.join(sandbox.workspace, "a.txt"), "one\ntwo\nthree\n");
    const result = await run(createReadTool({ workspaceDir: sandbox.workspace }), { path: "a.txt" });
    expect(textOf(result)).toBe("one\ntwo\nthree");
    expect(result.details).toEqual({ path: "a.txt", startLine: 1, endLine: 3, totalLines: 3, truncated: false });
  });

  it("pages with offset and limit and says how to continue", async () => {
    await writeFile(
      path.join(sandbox.workspace, "n.txt"),
      Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n"),
    );
    const result = await run(createReadTool({ workspaceDir: sandbox.workspace }), {
      path: "n.txt",
      offset: 4,
      limit: 3,
    });
    expect(textOf(result)).toBe(
      "line 4\nline 5\nline 6\n\n[Showing lines 4-6 of 10 (the 3-line limit). Use offset=7 to continue.]",
    );
    await expect(
      run(createReadTool({ workspaceDir: sandbox.workspace }), { path: "n.txt", offset: 11 }),
    ).rejects.toThrow(/past the end.*10 lines/);
  });

  it("cuts a long line before a character of two UTF-16 units, never in its middle", async () => {
    const max = TURN_DEFAULTS.maxLineChars;
    // The emoji's two units sit at the cut: max - 1 and max.
    const line = `${"a".repeat(max - 1)}😀${"b".repeat(10)}`;
    await writeFile(path.join(sandbox.workspace, "emoji.txt"), line);
    const text = textOf(await run(createReadTool({ workspaceDir: sandbox.workspace }), { path: "emoji.txt" }));
    expect(text.startsWith(`${"a".repeat(max - 1)}… [line cut at ${max} of ${line.length} characters]`)).toBe(true);
    expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it("cuts a big file at the line limit with a note", async () => {
    const total = TURN_DEFAULTS.readMaxLines + 500;
    await writeFile(
      path.join(sandbox.workspace, "big.txt"),
      Array.from({ length: total }, (_, i) => `${i + 1}`).join("\n"),
    );
    const result = await run(createReadTool({ workspaceDir: sandbox.workspace }), { path: "big.txt" });
    expect(result.details).toMatchObject({
      startLine: 1,
      endLine: TURN_DEFAULTS.readMaxLines,
      totalLines: total,
      truncated: true,
    });
    expect(textOf(result)).toContain(`[Showing lines 1-${TURN_DEFAULTS.readMaxLines} of ${total}`);
    expect(textOf(result)).toContain(`Use offset=${TURN_DEFAULTS.readMaxLines + 1} to continue.`);
  });

  it("cuts by bytes when lines are long", async () => {
    const line = "x".repeat(1000);
    await writeFile(path.join(sandbox.workspace, "wide.txt"), Array.from({ length: 200 }, () => line).join("\n"));
    const result = await run(createReadTool({ workspaceDir: sandbox.workspace }), { path: "wide.txt" });
    expect(result.details).toMatchObject({ truncated: true, totalLines: 200 });
    expect(textOf(result)).toMatch(/\(the 50 KB limit\)\. Use offset=\d+ to continue\.\]$/);
    expect(Buffer.byteLength(textOf(result))).toBeLessThan(52 * 1024);
  });

  it("returns images as image content, refuses binaries, directories and missing files", async () => {
    // A whole 3×2 PNG: read checks the content, so a bare signature is no longer taken for an image.
    const png = await readFile(new URL("./images/rgb-3x2.png", import.meta.url));
    await writeFile(path.join(sandbox.workspace, "dot.png"), png);
    await writeFile(path.join(sandbox.workspace, "blob.bin"), Buffer.from([1, 0, 2, 3]));
    await mkdir(path.join(sandbox.workspace, "dir"));
    const read = createReadTool({ workspaceDir: sandbox.workspace });
    const image = await run(read, { path: "dot.png" });
    expect(image.content).toEqual([
      { type: "image", data: png.toString("base64"), mimeType: "image/png", fileName: "dot.png" },
    ]);
    await expect(run(read, { path: "blob.bin" })).rejects.toThrow(/binary file/);
    await expect(run(read, { path: "dir" })).rejects.toThrow(/is a directory/);
    await expect(run(read, { path: "nope.txt" })).rejects.toThrow("File not found: nope.txt");
  });
});

describe("write", () => {
  it("creates parent directories and reports created vs replaced", async () => {
    const write = createWriteTool({ workspaceDir: sandbox.workspace });
    const first = await run(write, { path: "deep/er/file.txt", content: "héllo" });
    expect(first.details).toEqual({ path: path.join("deep", "er", "file.txt"), bytes: 6, created: true });
    expect(textOf(first)).toBe(`Wrote 6 bytes to ${path.join("deep", "er", "file.txt")}`);
    const second = await run(write, { path: "deep/er/file.txt", content: "bye" });
    expect(second.details).toMatchObject({ created: false, bytes: 3 });
    expect(await readFile(path.join(sandbox.workspace, "deep/er/file.txt"), "utf8")).toBe("bye");
  });
});

describe("edit", () => {
  const file = () => path.join(sandbox.workspace, "code.ts");
  const edit = () => createEditTool({ workspaceDir: sandbox.workspace });

  it("replaces one unique occurrence literally", async () => {
    await writeFile(file(), "const a = 1;\nconst b = 2;\n");
    const result = await run(edit(), { path: "code.ts", oldText: "const b = 2;", newText: "const b = '$&';" });
    expect(await readFile(file(), "utf8")).toBe("const a = 1;\nconst b = '$&';\n");
    expect(result.details).toEqual({ path: "code.ts", line: 2, removedLines: 1, addedLines: 1 });
  });

  it("refuses zero matches and leaves the file alone", async () => {
    await writeFile(file(), "alpha\n");
    await expect(run(edit(), { path: "code.ts", oldText: "beta", newText: "gamma" })).rejects.toThrow(
      /oldText was not found in code\.ts/,
    );
    expect(await readFile(file(), "utf8")).toBe("alpha\n");
  });

  it("refuses two matches, naming the lines, and leaves the file alone", async () => {
    await writeFile(file(), "x = 1\ny = 2\nx = 1\n");
    await expect(run(edit(), { path: "code.ts", oldText: "x = 1", newText: "x = 3" })).rejects.toThrow(
      /occurs 2 times in code\.ts \(lines 1, 3\)/,
    );
    expect(await readFile(file(), "utf8")).toBe("x = 1\ny = 2\nx = 1\n");
  });

  it("refuses an empty oldText, a no-op and a missing file", async () => {
    await writeFile(file(), "a");
    await expect(run(edit(), { path: "code.ts", oldText: "", newText: "b" })).rejects.toThrow(/oldText is empty/);
    await expect(run(edit(), { path: "code.ts", oldText: "a", newText: "a" })).rejects.toThrow(/identical/);
    await expect(run(edit(), { path: "gone.ts", oldText: "a", newText: "b" })).rejects.toThrow(
      "File not found: gone.ts",
    );
  });
});

describe("createBuiltinTools", () => {
  it("returns the six tools with their execution modes", () => {
    const tools = createBuiltinTools({ workspaceDir: sandbox.workspace });
    expect(tools.map((t) => [t.def.name, t.def.executionMode])).toEqual([
      ["read", "parallel"],
      ["write", "sequential"],
      ["edit", "sequential"],
      ["bash", "sequential"],
      ["grep", "parallel"],
      ["glob", "parallel"],
    ]);
  });

  for (const [options, message] of [
    [undefined, "expected an options object { workspaceDir }, got undefined"],
    [{}, "workspaceDir must be a non-empty string, got undefined"],
    [{ workspaceDir: 5 }, "workspaceDir must be a non-empty string, got 5"],
    [{ workspaceDir: "" }, 'workspaceDir must be a non-empty string, got ""'],
    [{ workspaceDir: ".", bashEnv: "strict" }, 'bashEnv must be an object, got "strict"'],
  ] as const) {
    it(`refuses ${JSON.stringify(options)} when the tools are made, naming the option`, () => {
      expect(() => createBuiltinTools(options as never)).toThrow(
        new TurnkitConfigError(ConfigErrorCode.InvalidTool, `createBuiltinTools: ${message}`),
      );
    });
  }
});
