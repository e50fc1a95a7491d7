import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime, createHookExtension } from "@turnkit/agent-runtime";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it, onTestFinished } from "vitest";
import { type McpServerError, type McpServerStatus, createMcpExtension } from "../src/index.js";
import { startHttpFixture } from "./fixtures/http-fixture.js";
import { startUnusualServer } from "./fixtures/unusual-server.js";
import { type StdioFixture, isRunning, stdioFixture } from "./fixtures/stdio-fixture.js";
import { runMcpTurn, runtimeOf } from "./support/run-mcp-turn.js";
import { connectFailure } from "./support/connect-failure.js";

const started = (fixture: StdioFixture): number[] =>
  fixture.log().flatMap((entry) => (entry.event === "start" ? [entry.pid] : []));

describe("a server that breaks the protocol loses its connection at once", { timeout: 15_000 }, () => {
  it("a malformed JSON-RPC message (an answer whose id is an object) before a valid answer: the status is failed when the call returns, and the very next turn gets a fresh server", async () => {
    // A server that ignores end-of-input and SIGTERM: waiting for it to exit would keep the broken connection
    // "ready" for seconds, so the next turn would be sent to it.
    const fixture = stdioFixture({ MCP_FIXTURE_STUBBORN: "1" });
    const mcp = createMcpExtension({ id: "noisy", server: fixture.server, shutdownGraceMs: 100 });
    const seenAfterCall: McpServerStatus[] = [];
    const observer = createHookExtension({
      id: "observer",
      hooks: { after_tool_call: () => void seenAfterCall.push(mcp.status) },
    });
    const runtime = await createAgentRuntime({ base: [mcp, observer] });
    const current = fixture;

    const first = await runMcpTurn({ runtime, script: [response([toolCall("garbage_then_answer", {})]), "Hm."] });

    expect(first.toolResults[0]!.isError).toBe(true);
    expect(first.toolResults[0]!.text).toMatch(
      /^MCP server "noisy" wrote a malformed JSON-RPC message \(.+\); the connection was closed$/,
    );
    expect(seenAfterCall.map((status) => [status.state, status.lastError?.code])).toEqual([
      ["failed", "protocol_error"],
    ]);

    // The next turn, at once: a new process, not the broken one.
    const second = await runMcpTurn({
      runtime,
      turnId: "t2",
      script: [response([toolCall("echo", { text: "fresh" })]), "Done."],
    });
    expect(second.toolResults[0]).toMatchObject({ text: "echo: fresh", isError: false });
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 1 });
    const pids = started(current);
    expect(pids).toHaveLength(2);

    await runtime.dispose();
    // The stubborn processes are gone too: SIGKILL after end-of-input and SIGTERM were ignored.
    expect(pids.map(isRunning)).toEqual([false, false]);
  });

  it("a result that violates the tool's output schema is a protocol error, not the server's error, and the connection stays", async () => {
    const http = await startHttpFixture();
    const mcp = createMcpExtension({ id: "schemas", server: { url: http.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const { toolResults } = await runMcpTurn({
      runtime,
      script: [response([toolCall("count_words", {})]), response([toolCall("add", { a: 1, b: 2 })]), "Done."],
    });

    expect(toolResults[0]!.isError).toBe(true);
    expect(toolResults[0]!.text).toMatch(
      /^MCP server "schemas" answered tools\/call "count_words" with a result that does not match the tool's output schema: .*count/,
    );
    expect(toolResults[1]).toMatchObject({ isError: false, text: "3" });
    expect(mcp.status).toMatchObject({ state: "ready", lastError: { code: "protocol_error" } });
    await runtime.dispose();
  });
});

describe("a server that answers the handshake with a protocol version the client does not speak", () => {
  it("fails to connect as a protocol error naming both versions, not as a server that could not be reached", async () => {
    // A server written apart: it answers every initialize with a version from the future, as plain JSON.
    const http = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        const message = body === "" ? undefined : (JSON.parse(body) as { id?: number; method?: string });
        if (message?.method !== "initialize") return void res.writeHead(202).end();
        res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s-1" }).end(
          JSON.stringify({
            jsonrpc: "2.0",
            id: message.id,
            result: {
              protocolVersion: "2099-01-01",
              capabilities: { tools: {} },
              serverInfo: { name: "future", version: "9" },
            },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => http.close(() => resolve())));
    const { port } = http.address() as AddressInfo;
    const mcp = createMcpExtension({ id: "future", server: { url: `http://127.0.0.1:${port}/mcp` } });

    const error = (await connectFailure(mcp)) as McpServerError;
    expect(error?.code).toBe("connect_failed");
    expect(error?.message).toMatch(
      /^MCP server "future" could not connect: answered initialize with protocol version 2099-01-01, which this client does not speak \(it speaks 2025-11-25, .*2024-11-05/,
    );
    expect(mcp.status.state).toBe("failed");
    await mcp.dispose();
  });
});

describe("an HTTP answer that does not answer its request", () => {
  it("JSON, or a stateless server's event stream, with an answer to a request never asked, or a notification alone, fails its call at once as a protocol error; the connection stays", async () => {
    const stray = { jsonrpc: "2.0", id: 424242, result: { content: [] } };
    const notice = { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "working" } };
    const server = await startUnusualServer({
      // Stateless (sessions: unanswered-streams.test.ts).
      stateless: true,
      capabilities: { tools: {} },
      tools: ["stray", "notice", "stream_stray", "stream_notice", "stream_late", "echo"].map((name) => ({
        name,
        inputSchema: { type: "object" as const },
      })),
      jsonAnswerFor: (name) => (name === "stray" ? stray : name === "notice" ? notice : undefined),
      eventsFor: (name, id) => {
        if (name === "stream_stray") return [stray];
        if (name === "stream_notice") return [notice];
        // A stray answer, then the call's own: the call gets its own.
        if (name === "stream_late")
          return [stray, { jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "late" }] } }];
        return undefined;
      },
    });
    // Without the checks each call would wait the whole callTimeoutMs for an answer that cannot come.
    const mcp = createMcpExtension({ id: "odd", server: { url: server.url }, callTimeoutMs: 5_000 });
    const runtime = await runtimeOf(mcp);

    const started = Date.now();
    const calls = ["stray", "notice", "stream_stray", "stream_notice", "stream_late", "echo"];
    const { toolResults } = await runMcpTurn({
      runtime,
      script: [...calls.map((name) => response([toolCall(name, {})])), "Done."],
    });

    expect(Date.now() - started).toBeLessThan(5_000);
    const ended = "with an event stream that ended without its answer";
    expect(
      toolResults.map((result) => [result.isError, result.text, (result.details as { error?: string }).error]),
    ).toEqual([
      [
        true,
        'MCP server "odd" answered tools/call "stray" with JSON holding an answer to request 424242 instead',
        "protocol_error",
      ],
      [true, 'MCP server "odd" answered tools/call "notice" with JSON holding no answer', "protocol_error"],
      [true, `MCP server "odd" answered tools/call "stream_stray" ${ended}`, "protocol_error"],
      [true, `MCP server "odd" answered tools/call "stream_notice" ${ended}`, "protocol_error"],
      [false, "late", undefined],
      [false, "echo {}", undefined],
    ]);
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 0 });
  });
});
