import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { McpConfigError, createMcpExtension } from "../src/index.js";
import { startHttpFixture } from "./fixtures/http-fixture.js";
import { stdioFixture, waitUntil } from "./fixtures/stdio-fixture.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

const folders: string[] = [];

function workspace(): string {
  const folder = mkdtempSync(join(tmpdir(), "turnkit-roots-"));
  folders.push(folder);
  return folder;
}

type LogLine = [method: string, message: string, attrs: Record<string, unknown> | undefined];
function recordingLogger(lines: LogLine[]) {
  return {
    debug: (message: string, attrs?: Record<string, unknown>) => void lines.push(["debug", message, attrs]),
    warn: (message: string, attrs?: Record<string, unknown>) => void lines.push(["warn", message, attrs]),
    error: (message: string, attrs?: Record<string, unknown>) => void lines.push(["error", message, attrs]),
  };
}

describe("the client side of MCP: the host's SDK client, logging, roots", { timeout: 15_000 }, () => {
  it("over stdio: the host uses the connected client, log messages reach its logger at the level asked for, roots come from its workspace and can change", async () => {
    const fixture = stdioFixture();
    const lines: LogLine[] = [];
    const root = workspace();
    const mcp = createMcpExtension({
      id: "local",
      server: fixture.server,
      logger: recordingLogger(lines),
      logLevel: "info",
      roots: [root, { uri: "file:///srv/repo", name: "repo" }],
    });
    expect(mcp.client).toBeUndefined(); // not connected yet
    const runtime = await createAgentRuntime({ base: [mcp] });
    await mcp.connect();

    // The host's own requests go through the extension's connection: no second process.
    const client = mcp.client!;
    await expect(client.ping()).resolves.toEqual({});
    const direct = await client.callTool({ name: "echo", arguments: { text: "direct" } });
    expect(direct.content).toEqual([{ type: "text", text: "echo: direct" }]);

    const turn = await runMcpTurn({
      runtime,
      script: [response([toolCall("list_roots", {}), toolCall("log_messages", {})]), "Done."],
    });
    expect(JSON.parse(turn.toolResults[0]!.text)).toEqual([
      { uri: pathToFileURL(root).href },
      { uri: "file:///srv/repo", name: "repo" },
    ]);
    // logging/setLevel "info" reached the server: its debug message was never sent.
    expect(lines).toEqual([
      [
        "debug",
        'MCP server "local" (fixture): started',
        { server: "local", level: "info", logger: "fixture", data: "started" },
      ],
      ["warn", 'MCP server "local": {"disk":91}', { server: "local", level: "warning", data: { disk: 91 } }],
      [
        "error",
        'MCP server "local" (db): failed once',
        { server: "local", level: "critical", logger: "db", data: "failed once" },
      ],
    ]);

    const other = workspace();
    mcp.setRoots([other]);
    const current = fixture;
    await waitUntil(() => current.log().find((entry) => entry.event === "roots_changed"));
    const again = await runMcpTurn({ runtime, turnId: "t2", script: [response([toolCall("list_roots", {})]), "Ok."] });
    expect(JSON.parse(again.toolResults[0]!.text)).toEqual([{ uri: pathToFileURL(other).href }]);
    expect(() => mcp.setRoots(["relative/dir"])).toThrow(
      'setRoots: roots[0] must be an absolute path, got "relative/dir"',
    );
    expect(() => mcp.setRoots([{ uri: "https://example.test/repo" }])).toThrow(
      'setRoots: roots[0].uri must be a file:// URI (the protocol allows no other roots), got "https://example.test/repo"',
    );

    // A restart brings a new client; dispose leaves none.
    await runMcpTurn({ runtime, turnId: "t3", script: [response([toolCall("crash", {})]), "Crashed."] });
    expect(mcp.client).toBeUndefined();
    await mcp.connect();
    expect(mcp.client).toBeDefined();
    expect(mcp.client).not.toBe(client);
    await runtime.dispose();
    expect(mcp.client).toBeUndefined();
  });

  it("over Streamable HTTP: log messages and roots work the same; an extension without roots declares none", async () => {
    const http = await startHttpFixture();
    const lines: LogLine[] = [];
    const root = workspace();
    const withRoots = createMcpExtension({
      id: "remote",
      server: { url: http.url },
      logger: recordingLogger(lines),
      roots: [{ uri: pathToFileURL(root).href, name: "workspace" }],
      toolPrefix: "r_",
    });
    const plain = createMcpExtension({ id: "plain", server: { url: http.url }, toolPrefix: "p_" });
    const runtime = await createAgentRuntime({ base: [withRoots, plain] });

    const turn = await runMcpTurn({
      runtime,
      script: [
        response([toolCall("r_list_roots", {}), toolCall("r_log_messages", {}), toolCall("p_list_roots", {})]),
        "Ok.",
      ],
    });

    expect(JSON.parse(turn.toolResults[0]!.text)).toEqual([{ uri: pathToFileURL(root).href, name: "workspace" }]);
    // No logLevel: the server's own default sends everything, debug included.
    expect(lines.map(([method, message]) => [method, message])).toEqual([
      ["debug", 'MCP server "remote" (fixture): debug detail'],
      ["debug", 'MCP server "remote" (fixture): started'],
      ["warn", 'MCP server "remote": {"disk":91}'],
      ["error", 'MCP server "remote" (db): failed once'],
    ]);
    expect(turn.toolResults[2]).toMatchObject({ toolName: "p_list_roots", isError: true });
    expect(turn.toolResults[2]!.text).toMatch(/roots/i);
    const error = (() => {
      try {
        plain.setRoots([root]);
      } catch (failure) {
        return failure;
      }
    })();
    expect(McpConfigError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ field: "roots", code: "invalid_mcp_options" });
    await runtime.dispose();
  });
});
