/*
 * Messages over Streamable HTTP as servers written apart from the SDK send
 * them: members written as null (Python's `None`), and a message the
 * protocol's schema refuses. Each message comes on its own (a JSON
 * response, or an event of an event stream), so one message the client
 * cannot read is that message's problem, never the session's.
 */
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { startUnusualServer } from "./fixtures/unusual-server.js";
import { runMcpTurn, runtimeOf } from "./support/run-mcp-turn.js";

const found = (id: unknown) => ({
  jsonrpc: "2.0",
  id,
  result: { content: [{ type: "text", text: "found" }], _meta: null },
  error: null,
});
const nullLog = {
  jsonrpc: "2.0",
  id: null,
  method: "notifications/message",
  params: { level: "warning", logger: null, data: "slow index", _meta: null },
};

describe("odd messages over Streamable HTTP", { timeout: 15_000 }, () => {
  it("members written as null are read as absent; a message the schema refuses fails only the call it answers, at once, and the session goes on", async () => {
    const server = await startUnusualServer({
      capabilities: { tools: {} },
      tools: ["events_nulls", "json_nulls", "events_broken", "json_broken", "noisy", "slow"].map((name) => ({
        name,
        inputSchema: { type: "object" as const },
        annotations: { readOnlyHint: true },
      })),
      eventsFor: (name, id) => {
        if (name === "events_nulls") return [nullLog, found(id)];
        if (name === "events_broken") return [{ jsonrpc: "2.0", id, result: "done" }];
        // A notification the schema refuses, then the answer: the answer is read.
        if (name === "noisy") return [{ jsonrpc: "2.0", method: "notifications/message", params: "text" }, found(id)];
        return undefined;
      },
      jsonAnswerFor: (name, id) =>
        name === "json_nulls" ? found(id) : name === "json_broken" ? { jsonrpc: "2.0", id, result: "done" } : undefined,
      call: async (name) => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        return { content: [{ type: "text", text: `${name} done` }] };
      },
    });
    const warnings: unknown[] = [];
    const mcp = createMcpExtension({
      id: "odd",
      server: { url: server.url },
      callTimeoutMs: 5_000,
      logger: { warn: (message) => warnings.push(message) },
    });
    const runtime = await runtimeOf(mcp);

    const started = Date.now();
    const { toolResults } = await runMcpTurn({
      runtime,
      script: [
        // Read-only tools: each response's calls run side by side, so the slow call is in flight meanwhile.
        response([toolCall("slow", {}), toolCall("events_nulls", {}), toolCall("json_nulls", {})]),
        response([toolCall("slow", {}), toolCall("events_broken", {}), toolCall("json_broken", {})]),
        response([toolCall("noisy", {})]),
        "Done.",
      ],
    });

    expect(Date.now() - started).toBeLessThan(5_000);
    expect(
      toolResults.map((result) => [result.toolName, result.text, (result.details as { error?: string }).error]),
    ).toEqual([
      ["slow", "slow done", undefined],
      ["events_nulls", "found", undefined],
      ["json_nulls", "found", undefined],
      ["slow", "slow done", undefined],
      [
        "events_broken",
        'MCP server "odd" answered tools/call "events_broken" with a malformed message: result: Invalid input: expected object, received string',
        "protocol_error",
      ],
      [
        "json_broken",
        'MCP server "odd" answered tools/call "json_broken" with a malformed message: result: Invalid input: expected object, received string',
        "protocol_error",
      ],
      ["noisy", "found", undefined],
    ]);
    expect(warnings).toEqual([
      'MCP server "odd": slow index',
      expect.stringMatching(/^MCP server "odd" sent a message that is no valid JSON-RPC message \(.*\); it is ignored/),
    ]);
    expect(mcp.status).toMatchObject({ state: "ready", totalRestarts: 0 });
  });

  for (const [what, contentType, body] of [
    ["an empty JSON object", "application/json", "{}"],
    ["JSON null", "application/json", "null"],
    ["nothing", "application/json", ""],
    ["an event stream", "text/event-stream", ": ok\n\n"],
  ] as const) {
    it(`a POST of a notification answered with 200 and ${what}, not 202: the body is dropped, the session goes on`, async () => {
      const server = await startUnusualServer({
        capabilities: { tools: {} },
        tools: [{ name: "echo", inputSchema: { type: "object" } }],
        answerNonRequestsWith: { contentType, body },
      });
      const warnings: unknown[] = [];
      const mcp = createMcpExtension({
        id: "odd",
        server: { url: server.url },
        callTimeoutMs: 5_000,
        logger: { warn: (message) => warnings.push(message) },
      });
      const runtime = await runtimeOf(mcp);

      const { toolResults } = await runMcpTurn({ runtime, script: [response([toolCall("echo", { a: 1 })]), "Done."] });

      expect(toolResults.map((result) => [result.isError, result.text])).toEqual([[false, 'echo {"a":1}']]);
      expect(warnings).toEqual([]);
      expect(mcp.status).toMatchObject({ state: "ready", totalRestarts: 0, lastError: undefined });
    });
  }

  // Before, the malformed answer to the ping counted as a server out of reach: the session was lost.
  it("a call's event stream that ends without its answer, in a session whose server answers the ping with a result of null: the call fails, the session goes on", async () => {
    const server = await startUnusualServer({
      capabilities: { tools: {} },
      tools: ["vanish", "echo"].map((name) => ({ name, inputSchema: { type: "object" as const } })),
      // The stream ends with no event: the client asks the session with a ping whether the server went away.
      eventsFor: (name) => (name === "vanish" ? [] : undefined),
      pingAnswer: (id) => ({ jsonrpc: "2.0", id, result: null }),
    });
    const mcp = createMcpExtension({ id: "odd", server: { url: server.url }, callTimeoutMs: 5_000 });
    const runtime = await runtimeOf(mcp);

    const { toolResults } = await runMcpTurn({
      runtime,
      script: [response([toolCall("vanish", {})]), response([toolCall("echo", {})]), "Done."],
    });

    expect(toolResults.map((result) => [result.text, (result.details as { error?: string }).error])).toEqual([
      [
        'MCP server "odd" answered tools/call "vanish" with an event stream that ended without its answer',
        "protocol_error",
      ],
      ["echo {}", undefined],
    ]);
    expect(mcp.status).toMatchObject({ state: "ready", totalRestarts: 0 });
  });
});
