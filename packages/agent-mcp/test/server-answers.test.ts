import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { handWrittenServer } from "./fixtures/hand-written-server.js";
import { startUnusualServer } from "./fixtures/unusual-server.js";
import { runMcpTurn, runtimeOf } from "./support/run-mcp-turn.js";

describe("failures a server reports in its answer", () => {
  it("errors its handler throws read once each, with their data for the host; codes the SDK uses for its own timeout and closed connection are the server's errors here; an isError result without content still says what happened", async () => {
    const server = await startUnusualServer({
      capabilities: { tools: {} },
      tools: ["throws_mcp", "throws_plain", "fails_silently", "quota", "busy"].map((name) => ({
        name,
        inputSchema: { type: "object" },
      })),
      call: (name) => {
        if (name === "throws_mcp") throw new McpError(ErrorCode.InvalidParams, "q is required");
        if (name === "throws_plain") throw new Error("database is down");
        // -32001 and -32000 are in the range JSON-RPC leaves to servers; the SDK client uses them for its own failures.
        if (name === "quota") throw new McpError(ErrorCode.RequestTimeout, "quota exceeded", { retryAfterS: 30 });
        if (name === "busy") throw new McpError(ErrorCode.ConnectionClosed, "busy, try later");
        return { content: [], isError: true };
      },
    });
    const mcp = createMcpExtension({ id: "odd", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({
      runtime,
      script: [
        response([toolCall("throws_mcp", {}), toolCall("throws_plain", {}), toolCall("fails_silently", {})]),
        response([toolCall("quota", {}), toolCall("busy", {})]),
        "Done.",
      ],
    });

    expect(turn.toolResults.map(({ isError, text }) => ({ isError, text }))).toEqual([
      {
        isError: true,
        text: 'MCP server "odd" answered tools/call "throws_mcp" with an error: MCP error -32602: q is required',
      },
      {
        isError: true,
        text: 'MCP server "odd" answered tools/call "throws_plain" with an error: MCP error -32603: database is down',
      },
      { isError: true, text: 'MCP server "odd" reported that tools/call "fails_silently" failed, without a message' },
      {
        isError: true,
        text: 'MCP server "odd" answered tools/call "quota" with an error: MCP error -32001: quota exceeded',
      },
      {
        isError: true,
        text: 'MCP server "odd" answered tools/call "busy" with an error: MCP error -32000: busy, try later',
      },
    ]);
    // The host reads why each call failed from its details: the McpServerError's code, or none for the server's own isError result.
    expect(turn.toolResults.map((result) => result.details)).toEqual([
      {
        server: "odd",
        tool: "throws_mcp",
        error: "server_error",
        jsonRpcError: { code: -32602, message: "MCP error -32602: q is required" },
      },
      {
        server: "odd",
        tool: "throws_plain",
        error: "server_error",
        jsonRpcError: { code: -32603, message: "database is down" },
      },
      { server: "odd", tool: "fails_silently" },
      {
        server: "odd",
        tool: "quota",
        error: "server_error",
        jsonRpcError: { code: -32001, message: "MCP error -32001: quota exceeded", data: { retryAfterS: 30 } },
      },
      {
        server: "odd",
        tool: "busy",
        error: "server_error",
        jsonRpcError: { code: -32000, message: "MCP error -32000: busy, try later" },
      },
    ]);
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 0 });
    await runtime.dispose();
  });

  it("an isError result whose text is empty or blank says that the tool failed without a message, as one without content does", async () => {
    const server = await startUnusualServer({
      capabilities: { tools: {} },
      tools: [{ name: "fails_blank", inputSchema: { type: "object" } }],
      call: () => ({
        content: [
          { type: "text", text: "" },
          { type: "text", text: " \n" },
        ],
        isError: true,
      }),
    });
    const mcp = createMcpExtension({ id: "odd", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({ runtime, script: [response([toolCall("fails_blank", {})]), "Done."] });

    expect(turn.toolResults.map(({ isError, content, details }) => ({ isError, content, details }))).toEqual([
      {
        isError: true,
        content: [
          { type: "text", text: 'MCP server "odd" reported that tools/call "fails_blank" failed, without a message' },
        ],
        details: { server: "odd", tool: "fails_blank" },
      },
    ]);
    await runtime.dispose();
  });
});

/** A server written in Python's way: every field of its answer present, the absent ones as null (`None`). */
const NULL_FIELDS = handWrittenServer({
  name: "pythonic",
  tool: "lookup",
  onCall: `send({ id: request.id, result: { content: [{ type: "text", text: "found", annotations: null, _meta: null }], isError: null, structuredContent: null } });`,
});

describe("an answer whose optional fields are null", { timeout: 15_000 }, () => {
  // Before, the result failed the protocol's schema (isError is a boolean): the call failed as a malformed message.
  it("is read as one without them: the call's result is its content", async () => {
    const mcp = createMcpExtension({
      id: "pythonic",
      server: { command: process.execPath, args: ["-e", NULL_FIELDS] },
      shutdownGraceMs: 100,
    });
    const runtime = await runtimeOf(mcp);

    const { toolResults } = await runMcpTurn({ runtime, script: [response([toolCall("lookup", {})]), "Found."] });

    expect(toolResults.map(({ isError, text, details }) => ({ isError, text, details }))).toEqual([
      { isError: false, text: "found", details: { server: "pythonic", tool: "lookup" } },
    ]);
    expect(mcp.status).toMatchObject({ state: "ready", lastError: undefined });
  });
});

/**
 * A server written by hand in Python's way, at the level of its messages:
 * a JSON-RPC object with every member, the absent ones as null (`None`).
 * Its notifications carry `"id": null` (as JSON-RPC 1.0 wrote them) and
 * null parameters, its answer `"error": null` and a null `_meta`.
 */
const NULL_MEMBERS = handWrittenServer({
  name: "pythonic",
  tool: "lookup",
  onCall: `
    const progressToken = request.params._meta.progressToken;
    send({ id: null, method: "notifications/progress", params: { progressToken, progress: 1, total: null, message: null, _meta: null } });
    send({ id: null, method: "notifications/message", params: { level: "warning", logger: null, data: "slow index", _meta: null } });
    // The answer a moment after the notifications, as from a tool that works in between.
    setTimeout(() => send({ id: request.id, result: { content: [{ type: "text", text: "found" }], _meta: null }, error: null }), 50);`,
});

describe("messages whose absent members are null", { timeout: 15_000 }, () => {
  // Before, each message failed JSON-RPC's schema: the first lost the connection as malformed, and the call with it.
  it("are read as messages without them: the progress and the log message reach the host, the call's result is its content", async () => {
    const warnings: unknown[] = [];
    const mcp = createMcpExtension({
      id: "pythonic",
      server: { command: process.execPath, args: ["-e", NULL_MEMBERS] },
      shutdownGraceMs: 100,
      logger: { warn: (message, attrs) => warnings.push({ message, attrs }) },
    });
    const runtime = await runtimeOf(mcp);

    const { toolResults, events } = await runMcpTurn({
      runtime,
      script: [response([toolCall("lookup", {})]), "Found."],
    });

    expect(toolResults.map(({ isError, text, details }) => ({ isError, text, details }))).toEqual([
      { isError: false, text: "found", details: { server: "pythonic", tool: "lookup" } },
    ]);
    const updates = events.flatMap((event) =>
      event.type === "debug.trace" && event.payload.message === "tool_execution_update"
        ? [event.payload.attrs?.partialResult]
        : [],
    );
    expect(updates).toMatchObject([{ details: { progress: { progress: 1 } } }]);
    expect(warnings).toEqual([
      {
        message: 'MCP server "pythonic": slow index',
        attrs: { server: "pythonic", level: "warning", data: "slow index" },
      },
    ]);
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 0, lastError: undefined });
  });
});
