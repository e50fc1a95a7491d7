import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { McpServerError, createMcpExtension } from "../src/index.js";
import { type StdioFixture, isRunning, stdioFixture, waitUntil } from "./fixtures/stdio-fixture.js";
import { startUnusualServer } from "./fixtures/unusual-server.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";
import { connectFailure } from "./support/connect-failure.js";

const started = (fixture: StdioFixture): number[] =>
  fixture.log().flatMap((entry) => (entry.event === "start" ? [entry.pid] : []));

describe("a failing MCP server fails its calls, never the turn", { timeout: 15_000 }, () => {
  it("killed in the middle of a call: that call is answered with an error naming the server, the turn completes, the next turn restarts it", async () => {
    const fixture = stdioFixture();
    const mcp = createMcpExtension({ id: "fragile", server: fixture.server });
    const runtime = await createAgentRuntime({ base: [mcp] });
    const current = fixture;

    const turn = runMcpTurn({
      runtime,
      script: [response([toolCall("hang", {})]), response([toolCall("echo", { text: "again" })]), "The server died."],
    });
    await current.waitFor((entry) => entry.event === "begin" && entry.tool === "hang");
    const [pid] = started(current);
    process.kill(pid!, "SIGKILL");
    const { outcome, toolResults } = await turn;

    expect(outcome).toEqual({ kind: "completed" });
    expect(toolResults[0]).toMatchObject({ toolName: "hang", isError: true });
    expect(toolResults[0]!.text).toMatch(
      /^MCP server "fragile" exited \(its last stderr line: fixture: started as \d+\)$/,
    );
    // Later calls of the same turn do not wait for anything: the server is down until the next turn.
    expect(toolResults[1]).toMatchObject({ toolName: "echo", isError: true });
    expect(toolResults[1]!.text).toMatch(
      /^MCP server "fragile" is not running: it exited .*; it is restarted for the next turn$/,
    );
    expect(mcp.status).toMatchObject({ state: "failed", restarts: 0, lastError: { code: "server_exited" } });

    const next = await runMcpTurn({
      runtime,
      turnId: "t2",
      script: [response([toolCall("echo", { text: "back" })]), "Done."],
    });
    expect(next.toolResults[0]).toMatchObject({ text: "echo: back", isError: false });
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 1 });
    const pids = started(current);
    expect(pids).toHaveLength(2);
    expect(pids[1]).not.toBe(pid);
    await runtime.dispose();
    expect(isRunning(pids[1]!)).toBe(false);
  });

  it("a server that never answers: the call times out with an error naming the server, is cancelled on the server, and the turn goes on", async () => {
    const fixture = stdioFixture();
    const mcp = createMcpExtension({ id: "sleepy", server: fixture.server, callTimeoutMs: 300 });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const { outcome, toolResults } = await runMcpTurn({
      runtime,
      script: [response([toolCall("hang", {})]), response([toolCall("echo", { text: "still works" })]), "Done."],
    });

    expect(outcome).toEqual({ kind: "completed" });
    expect(toolResults.map(({ isError, text }) => ({ isError, text }))).toEqual([
      { isError: true, text: 'MCP server "sleepy" did not answer tools/call "hang" within 300 ms' },
      { isError: false, text: "echo: still works" },
    ]);
    expect(toolResults[0]!.details).toEqual({ server: "sleepy", tool: "hang", error: "call_timeout" });
    await fixture.waitFor((entry) => entry.event === "cancelled");
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 0, lastError: { code: "call_timeout" } });
    await runtime.dispose();
  });

  it("a malformed JSON-RPC message (an answer with neither result nor error): the call fails as a protocol error at once, and the server is restarted for the next turn", async () => {
    const fixture = stdioFixture();
    const mcp = createMcpExtension({ id: "noisy", server: fixture.server, callTimeoutMs: 10_000 });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const startedAt = Date.now();
    const { outcome, toolResults } = await runMcpTurn({
      runtime,
      script: [response([toolCall("garbage_line", {})]), "Done."],
    });

    expect(outcome).toEqual({ kind: "completed" });
    expect(Date.now() - startedAt).toBeLessThan(5_000); // not the 10 s call timeout
    expect(toolResults[0]!.isError).toBe(true);
    expect(toolResults[0]!.text).toMatch(
      /^MCP server "noisy" wrote a malformed JSON-RPC message \(.+\); the connection was closed$/,
    );
    expect(mcp.status).toMatchObject({ state: "failed", lastError: { code: "protocol_error" } });

    const next = await runMcpTurn({
      runtime,
      turnId: "t2",
      script: [response([toolCall("echo", { text: "fresh" })]), "Done."],
    });
    expect(next.toolResults[0]).toMatchObject({ text: "echo: fresh", isError: false });
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 1 });
    await runtime.dispose();
  });

  it("a malformed result: that call fails as a protocol error, the connection stays", async () => {
    const fixture = stdioFixture();
    const mcp = createMcpExtension({ id: "sloppy", server: fixture.server });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const { toolResults } = await runMcpTurn({
      runtime,
      script: [response([toolCall("garbage_result", {})]), response([toolCall("echo", { text: "ok" })]), "Done."],
    });

    expect(toolResults[0]!.isError).toBe(true);
    expect(toolResults[0]!.text).toMatch(
      /^MCP server "sloppy" answered tools\/call "garbage_result" with a malformed message: content: /,
    );
    expect(toolResults[1]).toMatchObject({ text: "echo: ok", isError: false });
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 0, lastError: { code: "protocol_error" } });
    expect(started(fixture)).toHaveLength(1);
    await runtime.dispose();
  });

  it("restarts stop at maxRestarts: then its tools stay listed and their calls are answered server_unavailable", async () => {
    const fixture = stdioFixture();
    const statuses: string[] = [];
    const mcp = createMcpExtension({
      id: "crashy",
      server: fixture.server,
      restart: { maxRestarts: 1 },
      onStatus: (status) => statuses.push(status.state),
    });
    const runtime = await createAgentRuntime({ base: [mcp] });
    const current = fixture;
    const hangs = () => current.log().filter((entry) => entry.event === "begin" && entry.tool === "hang").length;
    const killDuringHang = async (turnId: string) => {
      const before = hangs();
      const turn = runMcpTurn({ runtime, turnId, script: [response([toolCall("hang", {})]), "Died."] });
      await waitUntil(() => (hangs() > before ? true : undefined));
      process.kill(started(current).at(-1)!, "SIGKILL");
      return turn;
    };

    await killDuringHang("t1");
    await killDuringHang("t2");
    expect(mcp.status).toMatchObject({ state: "gave_up", restarts: 1 });

    const third = await runMcpTurn({
      runtime,
      turnId: "t3",
      script: [response([toolCall("echo", { text: "anyone?" })]), "Gone."],
    });
    expect(third.model.requests[0]!.context.tools!.map((tool) => tool.name)).toContain("echo");
    expect(third.toolResults[0]!.isError).toBe(true);
    expect(third.toolResults[0]!.text).toMatch(
      /^MCP server "crashy" is not running and will not be restarted \(1 of 1 restarts in a row used\); it exited/,
    );
    expect(started(current)).toHaveLength(2);
    expect(statuses).toEqual(["connecting", "ready", "failed", "connecting", "ready", "gave_up"]);
    await runtime.dispose();
  });

  it("a server that cannot start: the turn runs without its tools; connect() rejects naming the server", async () => {
    const fixture = stdioFixture({ MCP_FIXTURE_EXIT_AT_START: "1" });
    const refusing = createMcpExtension({ id: "refusing", server: fixture.server, restart: { maxRestarts: 0 } });
    const missing = createMcpExtension({
      id: "missing",
      server: { command: "turnkit-no-such-command" },
      restart: { maxRestarts: 0 },
    });
    const runtime = await createAgentRuntime({ base: [refusing, missing] });

    const { outcome, model } = await runMcpTurn({ runtime, script: ["No tools today."] });

    expect(outcome).toEqual({ kind: "completed" });
    expect(model.requests[0]!.context.tools ?? []).toEqual([]);
    expect(refusing.status).toMatchObject({ state: "gave_up", lastError: { code: "connect_failed" } });
    expect(refusing.status.lastError!.message).toBe(
      'MCP server "refusing" could not connect: exited (its last stderr line: fixture: refusing to start)',
    );
    expect(refusing.status.stderrTail).toBe("fixture: refusing to start\n");
    const error = await connectFailure(missing);
    expect(McpServerError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "connect_failed", serverId: "missing" });
    expect((error as Error).message).toBe(
      'MCP server "missing" could not connect: could not start "turnkit-no-such-command": spawn turnkit-no-such-command ENOENT',
    );
    await runtime.dispose();
  });

  it("a server slower to answer the handshake than connectTimeoutMs: the turn runs without its tools, saying why; a stdio process is stopped", async () => {
    const slowStdio = stdioFixture({ MCP_FIXTURE_SLOW_START_MS: "2000" });
    const slowHttp = await startUnusualServer({ capabilities: { tools: {} }, initializeDelayMs: 2_000 });
    const options = { connectTimeoutMs: 150, shutdownGraceMs: 100, restart: { maxRestarts: 0 } };
    const stdio = createMcpExtension({ id: "sleepy", server: slowStdio.server, ...options });
    const http = createMcpExtension({ id: "drowsy", server: { url: slowHttp.url }, ...options });
    const runtime = await createAgentRuntime({ base: [stdio, http] });

    const begun = Date.now();
    const { outcome, events } = await runMcpTurn({ runtime, script: ["No tools today."] });

    expect(outcome).toEqual({ kind: "completed" });
    expect(Date.now() - begun).toBeLessThan(2_000);
    const warnings = events.flatMap((event) => (event.type === "runtime.warning" ? [event.payload.message] : []));
    expect(warnings).toEqual([
      // Its stderr line is there when the process got as far as writing it within the 150 ms.
      expect.stringMatching(
        /^MCP server "sleepy" could not connect: did not answer initialize within 150 ms( \(its last stderr line: fixture: started as \d+\))?; the turn runs without its tools$/,
      ),
      'MCP server "drowsy" could not connect: did not answer initialize within 150 ms; the turn runs without its tools',
    ]);
    expect([stdio.status.lastError?.code, http.status.lastError?.code]).toEqual(["connect_failed", "connect_failed"]);
    // Its process, which never read the handshake, is stopped (SIGTERM after shutdownGraceMs), not left running.
    const [pid] = started(slowStdio);
    await waitUntil(() => (isRunning(pid!) ? undefined : true));
    await runtime.dispose();
  });

  it("a working directory that does not exist is named as the problem, not the command (which Node reports as not found)", async () => {
    const mcp = createMcpExtension({
      id: "misplaced",
      server: { command: process.execPath, args: ["-e", ""], cwd: "/turnkit-no-such-directory" },
    });

    const error = await connectFailure(mcp);

    expect(error).toMatchObject({
      code: "connect_failed",
      message: `MCP server "misplaced" could not connect: could not start ${JSON.stringify(process.execPath)}: its working directory "/turnkit-no-such-directory" (server.cwd) is not a directory that exists (spawn ${process.execPath} ENOENT)`,
    });
    await mcp.dispose();
  });
});
