import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { isRunning, waitUntil } from "./fixtures/stdio-fixture.js";
import { connectFailure } from "./support/connect-failure.js";

/**
 * A server written by hand: it notes its pid, answers `initialize` with
 * `answerInitialize(request)` (the text it writes, in one write), refuses
 * `logging/setLevel`, and lists no tools. It ignores end-of-input.
 */
function handWrittenServer(answerInitialize: string) {
  const folder = mkdtempSync(join(tmpdir(), "turnkit-mcp-handshake-"));
  onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
  const pidFile = join(folder, "pid");
  const script = `
    require("node:fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));
    const line = (message) => JSON.stringify({ jsonrpc: "2.0", ...message }) + "\\n";
    const answerInitialize = ${answerInitialize};
    let buffered = "";
    process.stdin.on("data", (chunk) => {
      buffered += chunk;
      for (let end = buffered.indexOf("\\n"); end !== -1; end = buffered.indexOf("\\n")) {
        const request = JSON.parse(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
        if (request.method === "initialize") process.stdout.write(answerInitialize(request));
        else if (request.method === "logging/setLevel")
          process.stdout.write(line({ id: request.id, error: { code: -32601, message: "no levels here" } }));
        else if (request.method === "tools/list") process.stdout.write(line({ id: request.id, result: { tools: [] } }));
      }
    });
    setInterval(() => {}, 60_000);
  `;
  return {
    server: { command: process.execPath, args: ["-e", script] },
    pid: () => waitUntil(() => Number(readFileSync(pidFile, "utf8")) || undefined),
  };
}

const INITIALIZED = `(request) => line({ id: request.id, result: { protocolVersion: request.params.protocolVersion, capabilities: { tools: {}, logging: {} }, serverInfo: { name: "hand", version: "1" } } })`;

describe("faults in the handshake of a stdio server", () => {
  it("a host logger that throws at the server's refusal of logging/setLevel changes nothing: the server is ready", async () => {
    const hand = handWrittenServer(INITIALIZED);
    const warned: string[] = [];
    const mcp = createMcpExtension({
      id: "levels",
      server: hand.server,
      logLevel: "debug",
      logger: {
        warn: (message) => {
          warned.push(message);
          throw new Error("log sink down");
        },
      },
      shutdownGraceMs: 100,
    });

    await expect(mcp.connect()).resolves.toMatchObject({ state: "ready" });
    expect(warned).toEqual(['MCP server "levels" refused logging/setLevel debug']);
    const pid = await hand.pid();
    await mcp.dispose();
    expect(isRunning(pid)).toBe(false);
  });

  // Before, the line failed the connect as "not JSON-RPC".
  it("a line that is no JSON-RPC message before the answer to initialize, in one write: the line is dropped and the connect succeeds", async () => {
    const hand = handWrittenServer(`(request) => "starting up\\n" + (${INITIALIZED})(request)`);
    const warnings: string[] = [];
    const mcp = createMcpExtension({
      id: "chatty",
      server: hand.server,
      shutdownGraceMs: 100,
      restart: { maxRestarts: 0 },
      logger: { warn: (message) => void warnings.push(message) },
    });

    await expect(mcp.connect()).resolves.toMatchObject({ state: "ready", serverInfo: { name: "hand" } });
    expect(warnings).toEqual([
      expect.stringMatching(
        /^MCP server "chatty" wrote to its stdout a line that is no JSON-RPC message; .*: starting up$/,
      ),
    ]);
    const pid = await hand.pid();
    await mcp.dispose();
    expect(isRunning(pid)).toBe(false);
  });

  it("a malformed JSON-RPC message before the answer to initialize, in one write: the connect fails as a protocol error, and no process is left", async () => {
    const hand = handWrittenServer(`(request) => line({ id: request.id }) + (${INITIALIZED})(request)`);
    const mcp = createMcpExtension({
      id: "chatty",
      server: hand.server,
      shutdownGraceMs: 100,
      restart: { maxRestarts: 0 },
    });

    const error = await connectFailure(mcp);
    expect(error).toMatchObject({ code: "connect_failed" });
    expect((error as Error).message).toMatch(/^MCP server "chatty" could not connect: .*malformed JSON-RPC message/);
    const pid = await hand.pid();
    await mcp.dispose();
    expect(isRunning(pid)).toBe(false);
  });

  for (const [what, answerInitialize, expected] of [
    [
      "exits as it reads initialize",
      `(request) => { process.stderr.write("no config found\\n"); process.exit(3); }`,
      'MCP server "early" could not connect: exited (its last stderr line: no config found)',
    ],
    [
      // Seen only at a write: the client pings a server whose handshake is unanswered.
      "closes its stdin as it reads initialize, without answering, and lives on",
      `(request) => { process.stderr.write("reader crashed\\n"); process.stdin.destroy(); require("node:fs").closeSync(0); return ""; }`,
      'MCP server "early" could not connect: closed its stdin and kept running (its last stderr line: reader crashed)',
    ],
  ] as const) {
    it(`a server that ${what} fails connect() within seconds, not after connectTimeoutMs, with what happened`, async () => {
      const hand = handWrittenServer(answerInitialize);
      const mcp = createMcpExtension({
        id: "early",
        server: hand.server,
        connectTimeoutMs: 10_000,
        shutdownGraceMs: 100,
        restart: { maxRestarts: 0 },
      });

      const startedAt = Date.now();
      const failure = await connectFailure(mcp);

      expect(Date.now() - startedAt).toBeLessThan(5_000);
      expect(failure).toMatchObject({ code: "connect_failed", message: expected });
      await mcp.dispose();
    });
  }
});
