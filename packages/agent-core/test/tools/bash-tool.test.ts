import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBashTool } from "../../src/tools/builtin/bash-tool.js";
import { TURN_DEFAULTS } from "../../src/defaults.js";
import { makeSandbox, run, textOf } from "./fixtures.js";

let sandbox: Awaited<ReturnType<typeof makeSandbox>>;
beforeEach(async () => {
  sandbox = await makeSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

/** True while `pid` runs; a killed process waiting to be reaped (a zombie) counts as dead. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return true;
  }
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

const bash = (options: Partial<Parameters<typeof createBashTool>[0]> = {}) =>
  createBashTool({ workspaceDir: sandbox.workspace, baseEnv: { PATH: process.env.PATH }, ...options });

describe("bash", () => {
  it("runs in the workspace and merges stdout and stderr", async () => {
    const result = await run(bash(), { command: "pwd; echo out; echo err 1>&2" });
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toBe(`${sandbox.workspace}\nout\nerr\n`);
    expect(result.details).toMatchObject({ exitCode: 0, timedOut: false, aborted: false, truncated: false });
  });

  it("reports a non-zero exit as an error result with the code in details", async () => {
    const result = await run(bash(), { command: "echo failing; exit 3" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("failing\n\n\n[Command exited with code 3]");
    expect(result.details).toMatchObject({ exitCode: 3, signal: null });
  });

  it("abort kills the whole process group, background children included", async () => {
    const controller = new AbortController();
    const pidFile = path.join(sandbox.workspace, "pids");
    const pending = run(
      bash(),
      { command: `sleep 30 & echo $! > ${pidFile}; sleep 30 & echo $! >> ${pidFile}; wait` },
      { signal: controller.signal },
    );
    await waitFor(async () => (await readFile(pidFile, "utf8").catch(() => "")).trim().split("\n").length === 2);
    const pids = (await readFile(pidFile, "utf8")).trim().split("\n").map(Number);
    expect(pids.every(isAlive)).toBe(true);
    const started = Date.now();
    controller.abort();
    const result = await pending;
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Command aborted\./);
    expect(result.details).toMatchObject({ aborted: true, signal: "SIGKILL" });
    await waitFor(() => pids.every((pid) => !isAlive(pid)));
  });

  it("times out, kills the command and says so", async () => {
    const started = Date.now();
    const result = await run(bash(), { command: "echo before; sleep 30", timeout: 0.3 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("Command timed out after 0.3 s and was killed.\n\nbefore\n");
    expect(result.details).toMatchObject({ timedOut: true, exitCode: null });
  });

  it("refuses to start when already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(run(bash(), { command: "echo hi" }, { signal: controller.signal })).rejects.toThrow();
  });

  it("keeps only the tail of large output and says how much was cut", async () => {
    const result = await run(bash(), {
      command: `head -c ${TURN_DEFAULTS.bashMaxOutputBytes * 3} /dev/zero | tr '\\0' 'a'; echo; echo THE-END`,
    });
    const text = textOf(result);
    expect(result.details).toMatchObject({ truncated: true, outputBytes: TURN_DEFAULTS.bashMaxOutputBytes * 3 + 9 });
    expect(text).toMatch(/^\[Output cut: showing the last 50 KB of 150 KB\]\n/);
    expect(text.endsWith("THE-END\n")).toBe(true);
    expect(Buffer.byteLength(text)).toBeLessThan(TURN_DEFAULTS.bashMaxOutputBytes + 200);
  });

  it("streams partial output through onUpdate", async () => {
    const updates: unknown[] = [];
    await run(bash(), { command: "echo first; sleep 0.4; echo second" }, { onUpdate: (u) => updates.push(u) });
    expect(updates.length).toBeGreaterThanOrEqual(1);
    expect(updates[0]).toMatchObject({ content: [{ type: "text", text: "first\n" }] });
  });

  it("sanitises the child's environment: boundary variables always, credentials in scrub mode", async () => {
    const baseEnv = {
      PATH: process.env.PATH,
      OPENAI_API_KEY: "sk-should-not-leak",
      TURNKIT_SESSION_ID: "parent-session",
      HARMLESS: "visible",
    };
    const scrubbed = await run(bash({ baseEnv, bashEnv: { mode: "scrub" } }), { command: "env" });
    expect(textOf(scrubbed)).toContain("HARMLESS=visible");
    expect(textOf(scrubbed)).not.toContain("OPENAI_API_KEY");
    expect(textOf(scrubbed)).not.toContain("sk-should-not-leak");
    expect(textOf(scrubbed)).not.toContain("TURNKIT_SESSION_ID");

    const off = await run(bash({ baseEnv, bashEnv: { mode: "off" } }), { command: "env" });
    expect(textOf(off)).toContain("OPENAI_API_KEY=sk-should-not-leak");
    expect(textOf(off)).not.toContain("TURNKIT_SESSION_ID");
  });
});
