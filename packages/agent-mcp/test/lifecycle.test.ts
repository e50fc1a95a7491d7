import { spawn } from "node:child_process";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { ExtensionContributionError, createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { startHttpFixture } from "./fixtures/http-fixture.js";
import { HOST_PROCESS_BUNDLE, type StdioFixture, isRunning, stdioFixture } from "./fixtures/stdio-fixture.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

const pids = (fixture: StdioFixture): number[] =>
  fixture.log().flatMap((entry) => (entry.event === "start" ? [entry.pid] : []));

describe("lifecycle: lazy start, dispose, and nothing left behind", { timeout: 15_000 }, () => {
  it("dispose during a call: the call is answered, the process is gone, and the extension contributes to no later turn", async () => {
    const stdio = stdioFixture();
    const mcp = createMcpExtension({ id: "local", server: stdio.server });
    const runtime = await createAgentRuntime({ base: [mcp] });
    const current = stdio;

    const turn = runMcpTurn({ runtime, script: [response([toolCall("wait_for_cancel", {})]), "Done."] });
    await current.waitFor((entry) => entry.event === "begin");
    await runtime.dispose();
    const { outcome, toolResults } = await turn;

    expect(outcome).toEqual({ kind: "completed" });
    expect(toolResults[0]).toMatchObject({
      isError: true,
      text: 'MCP server "local" is not available: the runtime was disposed',
    });
    expect(isRunning(pids(current)[0]!)).toBe(false);
    const error = await runtime.assembleTurn({ sessionId: "s1", turnId: "t2" }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(ExtensionContributionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ extensionId: "local", cause: { code: "server_unavailable" } });
  });

  it("a disposed extension can join a new runtime (it starts over), but never two runtimes at once", async () => {
    const stdio = stdioFixture();
    const mcp = createMcpExtension({ id: "local", server: stdio.server });
    const first = await createAgentRuntime({ base: [mcp] });
    const taken = await createAgentRuntime({ base: [mcp] }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(taken).toMatchObject({ code: "extension_init" });
    expect((taken as Error).message).toContain('the MCP extension "local" already belongs to a runtime');

    await runMcpTurn({ runtime: first, script: [response([toolCall("echo", { text: "one" })]), "Done."] });
    await first.dispose();
    const second = await createAgentRuntime({ base: [mcp] });
    expect(mcp.status.state).toBe("idle");
    const turn = await runMcpTurn({
      runtime: second,
      script: [response([toolCall("echo", { text: "two" })]), "Done."],
    });
    expect(turn.toolResults[0]).toMatchObject({ text: "echo: two", isError: false });
    await second.dispose();
    expect(pids(stdio).map(isRunning)).toEqual([false, false]);
  });

  it("a host process that used a stdio and an HTTP server exits on its own after dispose", {
    timeout: 45_000,
  }, async () => {
    const stdio = stdioFixture();
    const http = await startHttpFixture();
    const child = spawn(process.execPath, [HOST_PROCESS_BUNDLE], {
      env: { ...process.env, MCP_HOST_STDIO: JSON.stringify(stdio.server), MCP_HOST_HTTP_URL: http.url },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let reportedAt = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      reportedAt ||= Date.now();
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    // Starting may be slow on a busy machine; exiting after dispose may not.
    const exit = await new Promise<{ code: number | null; timedOut: boolean }>((resolve) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        resolve({ code: null, timedOut: true });
      }, 40_000);
      child.on("exit", (code) => {
        clearTimeout(timer);
        resolve({ code, timedOut: false });
      });
    });
    const exitedAfterDisposeMs = Date.now() - reportedAt;

    expect({ ...exit, stderr }).toEqual({ code: 0, timedOut: false, stderr: "" });
    expect(exitedAfterDisposeMs).toBeLessThan(2_000);
    expect(JSON.parse(stdout)).toEqual({
      outcome: "completed",
      results: ["echo: a", "echo: b"],
      states: ["disposed", "disposed"],
    });
    expect(pids(stdio).map(isRunning)).toEqual([false]);
    expect(http.sessions.size).toBe(0);
  });
});
