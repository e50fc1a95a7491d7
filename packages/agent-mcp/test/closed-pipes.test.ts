import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it, onTestFinished } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { type StdioFixture, isRunning, stdioFixture, waitUntil } from "./fixtures/stdio-fixture.js";
import { handWrittenServer } from "./fixtures/hand-written-server.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";
import { connectFailure } from "./support/connect-failure.js";

const started = (fixture: StdioFixture): number[] =>
  fixture.log().flatMap((entry) => (entry.event === "start" ? [entry.pid] : []));

/**
 * A server that, at its tool's first call, closes its stdin (fd 0) and
 * then answers the call, and lives on, ignoring SIGTERM. Its pid goes to
 * `pidFile`. Closing before the answer: the host writes its next call only
 * after reading the answer, so that write meets the closed pipe (closed
 * after the answer, a loaded machine let the next call into the pipe first,
 * where it waited unread for its timeout).
 */
function stdinClosingServer(pidFile: string): string {
  return handWrittenServer({
    name: "deaf",
    tool: "ping_once",
    setup: `fs.writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); process.on("SIGTERM", () => {}); setInterval(() => {}, 60_000);`,
    onCall: `
      process.stderr.write("deaf: closing stdin\\n");
      fs.closeSync(0);
      send({ id: request.id, result: { content: [{ type: "text", text: "pong" }] } });
    `,
  });
}

describe("a stdio server that closes a pipe and lives on is lost as if it had exited", { timeout: 15_000 }, () => {
  it("after answering a call, it closes its stdout in the next one (and ignores SIGTERM): that call fails at once as server_exited, the next turn starts a new process, dispose ends both", async () => {
    const fixture = stdioFixture({ MCP_FIXTURE_STUBBORN: "1" });
    const mcp = createMcpExtension({ id: "mute", server: fixture.server, callTimeoutMs: 3_000, shutdownGraceMs: 100 });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const startedAt = Date.now();
    const { outcome, toolResults } = await runMcpTurn({
      runtime,
      script: [
        response([toolCall("echo", { text: "one" })]),
        response([toolCall("close_stdout", {})]),
        response([toolCall("echo", { text: "two" })]),
        "The server went quiet.",
      ],
    });

    expect(outcome).toEqual({ kind: "completed" });
    expect(Date.now() - startedAt).toBeLessThan(2_000); // not the 3 s call timeout
    expect(toolResults[0]).toMatchObject({ toolName: "echo", isError: false, text: "echo: one" });
    expect(toolResults[1]).toMatchObject({
      toolName: "close_stdout",
      isError: true,
      details: { server: "mute", tool: "close_stdout", error: "server_exited" },
    });
    expect(toolResults[1]!.text).toMatch(
      /^MCP server "mute" closed its stdout and kept running \(its last stderr line: fixture: started as \d+\)$/,
    );
    // As after an exit: later calls of the turn are not sent, the server is restarted for the next turn.
    expect(toolResults[2]).toMatchObject({ toolName: "echo", isError: true, details: { error: "server_unavailable" } });
    expect(toolResults[2]!.text).toMatch(
      /^MCP server "mute" is not running: it closed its stdout and kept running .*; it is restarted for the next turn$/,
    );
    expect(mcp.status).toMatchObject({ state: "failed", restarts: 0, lastError: { code: "server_exited" } });

    const next = await runMcpTurn({
      runtime,
      turnId: "t2",
      script: [response([toolCall("echo", { text: "back" })]), "Done."],
    });
    expect(next.toolResults[0]).toMatchObject({ text: "echo: back", isError: false });
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 1 });
    const pids = started(fixture);
    expect(pids).toHaveLength(2);

    await runtime.dispose();
    expect(pids.filter(isRunning)).toEqual([]);
  });

  it("a process that closes its stdout before the handshake fails connect() at once, not after connectTimeoutMs, and is gone once dispose resolves", async () => {
    const folder = mkdtempSync(join(tmpdir(), "turnkit-mcp-mute-"));
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    const pidFile = join(folder, "pid");
    const script = `
      const fs = require("node:fs");
      fs.writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));
      process.on("SIGTERM", () => {});
      process.stderr.write("mute: not speaking\\n");
      fs.closeSync(1);
      setInterval(() => {}, 60_000);
    `;
    const mcp = createMcpExtension({
      id: "mute",
      server: { command: process.execPath, args: ["-e", script] },
      connectTimeoutMs: 10_000,
      shutdownGraceMs: 100,
      restart: { maxRestarts: 0 },
    });

    const startedAt = Date.now();
    const failure = await connectFailure(mcp);

    expect(Date.now() - startedAt).toBeLessThan(5_000);
    expect(failure).toMatchObject({
      code: "connect_failed",
      serverId: "mute",
      message:
        'MCP server "mute" could not connect: closed its stdout and kept running (its last stderr line: mute: not speaking)',
    });
    expect(mcp.status).toMatchObject({ state: "gave_up", lastError: { code: "connect_failed" } });
    const pid = await waitUntil(() => Number(readFileSync(pidFile, "utf8")) || undefined);
    await mcp.dispose();
    expect(isRunning(pid)).toBe(false);
  });

  it("it closes its stdin as it answers a call (and ignores SIGTERM): the next call fails at once as server_exited, and the process is gone once dispose resolves", async () => {
    const folder = mkdtempSync(join(tmpdir(), "turnkit-mcp-deaf-"));
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    const pidFile = join(folder, "pid");
    const mcp = createMcpExtension({
      id: "deaf",
      server: { command: process.execPath, args: ["-e", stdinClosingServer(pidFile)] },
      callTimeoutMs: 3_000,
      shutdownGraceMs: 100,
    });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const startedAt = Date.now();
    const { outcome, toolResults } = await runMcpTurn({
      runtime,
      script: [
        response([toolCall("ping_once", {})]),
        response([toolCall("ping_once", {})]),
        "The server stopped listening.",
      ],
    });

    expect(outcome).toEqual({ kind: "completed" });
    expect(Date.now() - startedAt).toBeLessThan(2_000); // not the 3 s call timeout
    expect(toolResults[0]).toMatchObject({ isError: false, text: "pong" });
    expect(toolResults[1]).toMatchObject({
      isError: true,
      text: 'MCP server "deaf" closed its stdin and kept running (its last stderr line: deaf: closing stdin)',
      details: { error: "server_exited" },
    });
    expect(mcp.status).toMatchObject({ state: "failed", restarts: 0, lastError: { code: "server_exited" } });
    const pid = await waitUntil(() => Number(readFileSync(pidFile, "utf8")) || undefined);
    await runtime.dispose();
    expect(isRunning(pid)).toBe(false);
  });
});
