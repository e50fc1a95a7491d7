import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { defineRuntimeTool } from "@turnkit/agent-core";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { startReadmeServer } from "./fixtures/readme-server.js";
import { waitUntil } from "./fixtures/stdio-fixture.js";
import { startUnusualServer } from "./fixtures/unusual-server.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

const tools: Tool[] = ["ok", "bad_gateway", "too_large", "gone", "bad_request"].map((name) => ({
  name,
  inputSchema: { type: "object" },
}));
const STATUSES: Record<string, number> = { bad_gateway: 502, too_large: 413, gone: 404, bad_request: 400 };

describe("an HTTP error status answering one request", () => {
  it("a proxy's 502 or a 413 fails that call only: the turn's other calls reach the server, and the session stays", async () => {
    const server = await startUnusualServer({
      capabilities: { tools: {} },
      tools,
      httpStatusFor: (name) => STATUSES[name],
    });
    const mcp = createMcpExtension({ id: "proxied", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({
      runtime,
      script: [
        response([toolCall("bad_gateway", {})]),
        response([toolCall("ok", {}), toolCall("too_large", {}), toolCall("ok", {})]),
        "Done.",
      ],
    });

    expect(turn.toolResults.map(({ toolName, isError, text }) => ({ toolName, isError, text }))).toEqual([
      {
        toolName: "bad_gateway",
        isError: true,
        text: 'MCP server "proxied" could not be reached for tools/call "bad_gateway" (HTTP 502): Error POSTing to endpoint: refused with 502',
      },
      { toolName: "ok", isError: false, text: "ok {}" },
      {
        toolName: "too_large",
        isError: true,
        text: 'MCP server "proxied" could not be reached for tools/call "too_large" (HTTP 413): Error POSTing to endpoint: refused with 413',
      },
      { toolName: "ok", isError: false, text: "ok {}" },
    ]);
    expect(turn.toolResults.map((result) => (result.details as { error?: string }).error)).toEqual([
      "transport_error",
      undefined,
      "transport_error",
      undefined,
    ]);
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 0, totalRestarts: 0 });
    expect(server.listCursors).toEqual([undefined]); // one session, listed once
    await runtime.dispose();
  });

  it("a request whose socket closes at once without an answer is sent again a few times (a pooled socket the server had closed); one that closes while the server has it is not: the request ran", async () => {
    const server = await startUnusualServer({
      capabilities: { tools: {} },
      tools: ["ok", "cut_at_once", "cut_later"].map((name) => ({ name, inputSchema: { type: "object" } })),
      hangUpAfterMsFor: (name) => (name === "cut_at_once" ? 0 : name === "cut_later" ? 1_200 : undefined),
    });
    const mcp = createMcpExtension({ id: "cut", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    // Each failure loses the session (the server may be gone): one call a turn.
    const later = await runMcpTurn({ runtime, script: [response([toolCall("cut_later", {})]), "Done."] });
    const atOnce = await runMcpTurn({
      runtime,
      turnId: "t2",
      script: [response([toolCall("cut_at_once", {})]), "Done."],
    });

    const cut = (name: string) =>
      `MCP server "cut" could not be reached for tools/call "${name}": fetch failed (other side closed)`;
    expect([...later.toolResults, ...atOnce.toolResults].map(({ isError, text }) => [isError, text])).toEqual([
      [true, cut("cut_later")],
      [true, cut("cut_at_once")],
    ]);
    // Once for the call cut while the server had it; once and four times again for the one cut at once.
    expect(server.hungUp).toEqual(["cut_later", ...Array(5).fill("cut_at_once")]);
    await runtime.dispose();
  });

  it("a server that forgot the session (it restarted) answers 404: a new session is started at once and the request sent again, for calls and the host's requests", async () => {
    const server = await startUnusualServer({ capabilities: { tools: {}, resources: {} }, tools });
    const mcp = createMcpExtension({ id: "restarted", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });
    const first = await runMcpTurn({ runtime, script: [response([toolCall("ok", {})]), "Done."] });
    expect(first.toolResults[0]).toMatchObject({ isError: false, text: "ok {}" });

    server.forgetSessions();
    const next = await runMcpTurn({
      runtime,
      turnId: "t2",
      script: [response([toolCall("ok", { n: 1 }), toolCall("ok", { n: 2 })]), "Done."],
    });
    expect(next.toolResults.map(({ isError, text }) => ({ isError, text }))).toEqual([
      { isError: false, text: 'ok {"n":1}' },
      { isError: false, text: 'ok {"n":2}' },
    ]);
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 0, totalRestarts: 0 });
    expect(server.listCursors).toEqual([undefined, undefined]); // one new session

    server.forgetSessions();
    expect((await mcp.readResource("mem://readme")).contents).toEqual([
      { uri: "mem://readme", mimeType: "text/plain", text: "read me first" },
    ]);
    expect(server.listCursors).toEqual([undefined, undefined, undefined]);
    await runtime.dispose();
  });

  it("a request answered 404 in the new session too fails: the connection is lost, and the next turn starts a new session", async () => {
    const server = await startUnusualServer({
      capabilities: { tools: {} },
      tools,
      httpStatusFor: (name) => STATUSES[name],
    });
    const mcp = createMcpExtension({ id: "forgetful", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const first = await runMcpTurn({ runtime, script: [response([toolCall("gone", {})]), "Done."] });
    expect(first.toolResults[0]).toMatchObject({ isError: true, text: expect.stringContaining("(HTTP 404)") });
    expect(mcp.status.state).toBe("failed");

    const next = await runMcpTurn({ runtime, turnId: "t2", script: [response([toolCall("ok", {})]), "Done."] });
    expect(next.toolResults[0]).toMatchObject({ isError: false, text: "ok {}" });
    expect(mcp.status).toMatchObject({ state: "ready", totalRestarts: 1 });
    // The first session, the new one the 404 started at once (not a restart), the next turn's restart.
    expect(server.listCursors).toEqual([undefined, undefined, undefined]);
    await runtime.dispose();
  });

  it("a server written like the SDK's examples answers a session it forgot (it restarted) with 400: a new session at once, and the requests are sent again", async () => {
    const server = await startReadmeServer();
    const mcp = createMcpExtension({ id: "readme", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });
    const first = await runMcpTurn({ runtime, script: [response([toolCall("greet", { name: "Ann" })]), "Done."] });
    expect(first.toolResults[0]).toMatchObject({ isError: false, text: "Hello, Ann!" });

    await server.restart();
    // Two calls at once: each is refused with 400; one new session serves both.
    const next = await runMcpTurn({
      runtime,
      turnId: "t2",
      script: [response([toolCall("greet", { name: "Bo" }), toolCall("greet", { name: "Cy" })]), "Done."],
    });
    expect(next.toolResults.map(({ isError, text }) => ({ isError, text }))).toEqual([
      { isError: false, text: "Hello, Bo!" },
      { isError: false, text: "Hello, Cy!" },
    ]);
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 0, totalRestarts: 0 });

    await server.restart();
    expect((await mcp.readResource("users://7/profile")).contents).toEqual([
      { uri: "users://7/profile", text: "Profile of 7" },
    ]);
    expect(server.calls.toSorted()).toEqual(["greet Ann", "greet Bo", "greet Cy"]); // each call ran once
    await runtime.dispose();
  });

  it("a 400 refusing one request of a session the server still knows fails that call only; the session stays", async () => {
    const server = await startUnusualServer({
      capabilities: { tools: {} },
      tools,
      httpStatusFor: (name) => STATUSES[name],
    });
    const mcp = createMcpExtension({ id: "strict", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({
      runtime,
      script: [response([toolCall("bad_request", {})]), response([toolCall("ok", {})]), "Done."],
    });

    expect(turn.toolResults.map(({ isError, text }) => ({ isError, text }))).toEqual([
      {
        isError: true,
        text: 'MCP server "strict" could not be reached for tools/call "bad_request" (HTTP 400): Error POSTing to endpoint: refused with 400',
      },
      { isError: false, text: "ok {}" },
    ]);
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 0, totalRestarts: 0 });
    expect(server.listCursors).toEqual([undefined]); // one session
    await runtime.dispose();
  });

  it("a server that restarts in the middle of a turn: its refusal to reopen the session's event stream gets a new session at the turn's next call, not at the next turn", async () => {
    const server = await startReadmeServer();
    const mcp = createMcpExtension({ id: "readme", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });
    const restartServer = defineRuntimeTool({
      name: "restart_server",
      description: "Restarts the MCP server and waits until the client saw its event stream refused",
      parameters: { type: "object", properties: {} },
      execute: async () => {
        await server.restart();
        await waitUntil(() => mcp.status.state === "failed" || undefined);
        return { content: [{ type: "text", text: "restarted" }] };
      },
    });

    const turn = await runMcpTurn({
      runtime,
      tools: [restartServer],
      script: [
        response([toolCall("greet", { name: "Ann" })]),
        response([toolCall("restart_server", {})]),
        response([toolCall("greet", { name: "Bo" })]),
        "Done.",
      ],
    });

    expect(turn.toolResults.map(({ isError, text }) => ({ isError, text }))).toEqual([
      { isError: false, text: "Hello, Ann!" },
      { isError: false, text: "restarted" },
      { isError: false, text: "Hello, Bo!" },
    ]);
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 0, totalRestarts: 0 });

    // Between turns too: the next turn starts a new session, and it is not counted as a restart.
    await server.restart();
    await waitUntil(() => mcp.status.state === "failed" || undefined);
    const next = await runMcpTurn({
      runtime,
      turnId: "t2",
      script: [response([toolCall("greet", { name: "Cy" })]), "Done."],
    });
    expect(next.toolResults[0]).toMatchObject({ isError: false, text: "Hello, Cy!" });
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 0, totalRestarts: 0 });
    await runtime.dispose();
  });
});
