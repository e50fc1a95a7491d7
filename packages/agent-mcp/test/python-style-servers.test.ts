/*
 * Servers written by hand the way Python code writes JSON: `json.dumps`
 * with its spaces after separators, non-ASCII as `\u` escapes (emoji as
 * surrogate pairs), absent values as null (in its handshake's answer
 * too), floats that are no number as
 * `NaN`, integers past 2^53, progress tokens echoed as strings, requests
 * of their own with string ids. Over stdio here; over Streamable HTTP in
 * `python-style-http.test.ts`.
 */
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { handWrittenServer } from "./fixtures/hand-written-server.js";
import { runMcpTurn, runtimeOf } from "./support/run-mcp-turn.js";

/** What the server writes as it is, a line each, as Python's `json.dumps` writes it. */
const PROGRESS = `'{"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "' + request.params._meta.progressToken + '", "progress": 0.5, "total": null, "message": "indexing \\\\u00e9t\\\\u00e9"}}'`;
const UNKNOWN_PROGRESS = `'{"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "nobody-asked", "progress": 1}}'`;
const LOG = `'{"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "logger": "weather", "data": {"city": "Z\\\\u00fcrich"}}}'`;
const ASK_ROOTS = `'{"jsonrpc": "2.0", "id": "srv-1", "method": "roots/list"}'`;
/** The answer, with the client's answer to its own request quoted in its text. */
const RESULT = `'{"jsonrpc": "2.0", "id": ' + callId + ', "result": {"content": [{"type": "text", "text": "Z\\\\u00fcrich: 21 \\\\u00b0C \\\\ud83d\\\\ude00 (roots ' + JSON.stringify(JSON.stringify(answer.result.roots.map((root) => root.uri))).slice(1, -1) + ')", "annotations": {"audience": ["user", "assistant"], "priority": 0.5}}, {"type": "resource_link", "uri": "file:///data/z.csv", "name": "z.csv", "mimeType": "text/csv", "description": null}], "structuredContent": {"temp": 21.0, "humidity": NaN, "station": 18446744073709551615}, "isError": false}}'`;

const PYTHONIC = handWrittenServer({
  name: "weather",
  tool: "forecast",
  // Every field of its handshake's answer present, the absent ones (a capability it lacks too) as None.
  initializeResult: `{ protocolVersion: request.params.protocolVersion, capabilities: { tools: { listChanged: null }, logging: null, prompts: null }, serverInfo: { name: "weather", version: "1", title: null }, instructions: null }`,
  setup: "let callId;",
  onCall: `
    callId = request.id;
    for (const line of [${PROGRESS}, ${UNKNOWN_PROGRESS}, ${LOG}, ${ASK_ROOTS}]) fs.writeSync(1, line + "\\n");`,
  onOther: `
    if (request.id === "srv-1") {
      const answer = request;
      fs.writeSync(1, ${RESULT} + "\\n");
    }`,
});

describe("a stdio server that writes JSON as Python does", { timeout: 15_000 }, () => {
  it("its progress, log, own request and answer are all read: the model sees its text and link, the host its structured content", async () => {
    const logged: unknown[] = [];
    const mcp = createMcpExtension({
      id: "weather",
      server: { command: process.execPath, args: ["-e", PYTHONIC] },
      shutdownGraceMs: 100,
      callTimeoutMs: 5_000,
      roots: ["/srv/data"],
      logger: {
        debug: (message, attrs) => logged.push({ message, attrs }),
        warn: (message, attrs) => logged.push({ message, attrs }),
      },
    });
    const runtime = await runtimeOf(mcp);

    const started = Date.now();
    const { toolResults, events } = await runMcpTurn({
      runtime,
      script: [response([toolCall("forecast", {})]), "Sunny."],
    });

    expect(Date.now() - started).toBeLessThan(5_000);
    expect(toolResults.map(({ isError, text, details }) => ({ isError, text, details }))).toEqual([
      {
        isError: false,
        text: 'Zürich: 21 °C 😀 (roots ["file:///srv/data"])\nResource link file:///data/z.csv (z.csv)',
        details: {
          server: "weather",
          tool: "forecast",
          structuredContent: { temp: 21, humidity: null, station: 18446744073709551615 },
        },
      },
    ]);
    const updates = events.flatMap((event) =>
      event.type === "debug.trace" && event.payload.message === "tool_execution_update"
        ? [event.payload.attrs?.partialResult]
        : [],
    );
    expect(updates).toMatchObject([{ details: { progress: { progress: 0.5, message: "indexing été" } } }]);
    expect(logged).toEqual([
      {
        message: 'MCP server "weather" (weather): {"city":"Zürich"}',
        attrs: { server: "weather", level: "info", logger: "weather", data: { city: "Zürich" } },
      },
    ]);
    expect(mcp.status).toMatchObject({ state: "ready", totalRestarts: 0, lastError: undefined });
  });
});
