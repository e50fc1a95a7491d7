import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { isRunning, waitUntil } from "./fixtures/stdio-fixture.js";

/**
 * A server process that writes its pid to a file, then `body`, and stays
 * alive until a signal ends it (it ignores end-of-input). Returns the
 * `server` option and a reader of the pid.
 */
function lingeringServer(body: string) {
  const folder = mkdtempSync(join(tmpdir(), "turnkit-mcp-linger-"));
  onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
  const pidFile = join(folder, "pid");
  const script = `
    const fs = require("node:fs");
    fs.writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));
    ${body}
    setInterval(() => {}, 60_000);
  `;
  return {
    server: { command: process.execPath, args: ["-e", script] },
    pid: () => waitUntil(() => Number(readFileSync(pidFile, "utf8")) || undefined),
  };
}

describe("a stdio server's process after a failure the SDK closed the transport for", () => {
  it("a process that never answers initialize (it closed its stdout) is gone once dispose resolves", async () => {
    const lingering = lingeringServer("fs.closeSync(1);");
    const mcp = createMcpExtension({
      id: "silent",
      server: lingering.server,
      connectTimeoutMs: 300,
      shutdownGraceMs: 100,
      restart: { maxRestarts: 0 },
    });

    await expect(mcp.connect()).rejects.toMatchObject({ code: "connect_failed" });
    const pid = await lingering.pid();
    await mcp.dispose();

    expect(isRunning(pid)).toBe(false);
  });

  it("a process that wrote a message longer than maxMessageBytes is gone once dispose resolves", async () => {
    const lingering = lingeringServer(`fs.writeSync(1, "x".repeat(200_000) + "\\n");`);
    const mcp = createMcpExtension({
      id: "huge",
      server: lingering.server,
      maxMessageBytes: 1_000,
      connectTimeoutMs: 5_000,
      shutdownGraceMs: 100,
      restart: { maxRestarts: 0 },
    });

    await expect(mcp.connect()).rejects.toMatchObject({ code: "connect_failed" });
    const pid = await lingering.pid();
    await mcp.dispose();

    expect(isRunning(pid)).toBe(false);
  });
});
