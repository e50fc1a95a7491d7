/**
 * A stdio server that writes to its stdout what is no JSON-RPC message: a
 * banner ("Server running on stdio") and structured log lines (pino's JSON,
 * without a `jsonrpc` member), as servers tried with the MCP SDK's own
 * client do. Such lines are dropped, the session and its calls go on, and
 * the host's logger hears of it once per connection.
 */
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { handWrittenServer } from "./fixtures/hand-written-server.js";
import { runMcpTurn, runtimeOf } from "./support/run-mcp-turn.js";

/** A pino line, as `pino()` writes to stdout by default. */
const PINO_LINE = `JSON.stringify({ level: 30, time: Date.now(), pid: process.pid, hostname: "box", msg: "tools/call " + request.id })`;

/**
 * Prints a banner (in terminal colours) at its start, before it is asked
 * anything, and for each call a pino line and then the answer in one
 * write, then another pino line: the client reads a log line before, and
 * one between, the answers.
 */
const LOGS_TO_STDOUT = handWrittenServer({
  name: "chatty",
  tool: "lookup",
  setup: 'fs.writeSync(1, "\\u001b[32mWeather MCP Server running on stdio\\u001b[0m\\n");',
  onCall: `
    fs.writeSync(1, ${PINO_LINE} + "\\n" + JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { content: [{ type: "text", text: "sunny " + request.id }] } }) + "\\n");
    fs.writeSync(1, ${PINO_LINE} + "\\n");
  `,
});

describe("stray output on a stdio server's stdout", { timeout: 15_000 }, () => {
  // Before, the banner broke the handshake (the connect failed as "not JSON-RPC"), and a log line closed the
  // connection and failed the call whose answer followed it.
  it("a banner before the handshake and JSON log lines around answers: the connect and every call succeed, the host is warned once", async () => {
    const warned: { message: string; attrs: unknown }[] = [];
    const mcp = createMcpExtension({
      id: "weather",
      server: { command: process.execPath, args: ["-e", LOGS_TO_STDOUT] },
      logger: { warn: (message, attrs) => void warned.push({ message, attrs }) },
      shutdownGraceMs: 100,
    });
    const runtime = await runtimeOf(mcp);

    const { outcome, toolResults } = await runMcpTurn({
      runtime,
      script: [
        response([toolCall("lookup", {})]),
        response([toolCall("lookup", {})]),
        response([toolCall("lookup", {})]),
        "Sunny all week.",
      ],
    });

    expect(outcome).toEqual({ kind: "completed" });
    expect(toolResults.map(({ isError, text }) => ({ isError, text }))).toEqual([
      { isError: false, text: expect.stringMatching(/^sunny \d+$/) },
      { isError: false, text: expect.stringMatching(/^sunny \d+$/) },
      { isError: false, text: expect.stringMatching(/^sunny \d+$/) },
    ]);
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 0, totalRestarts: 0 });
    expect(mcp.status.lastError).toBeUndefined();
    // The first stray line, without its terminal colours; none of the six after it.
    expect(warned).toEqual([
      {
        message:
          'MCP server "weather" wrote to its stdout a line that is no JSON-RPC message; it is ignored, and so are any more such lines of this connection (a stdio server\'s logs belong on stderr): Weather MCP Server running on stdio',
        attrs: { server: "weather", line: "Weather MCP Server running on stdio" },
      },
    ]);
  });
});

/**
 * A server written the way many are by hand: every message it does not
 * know, `notifications/initialized` included, gets "Method not found" with
 * the message's id, which a notification does not have (`"id": null`).
 */
const ANSWERS_NOTIFICATIONS = handWrittenServer({
  name: "literal",
  tool: "lookup",
  onCall: 'send({ id: request.id, result: { content: [{ type: "text", text: "found" }] } });',
  onOther: 'send({ id: request.id ?? null, error: { code: -32601, message: "Method not found: " + request.method } });',
});

describe("a JSON-RPC error with a null id", { timeout: 15_000 }, () => {
  // Before, the error (not a valid MCP message) lost the connection right after the handshake, at every restart.
  it("answers no request: it is dropped, the host is warned once, and the calls go on", async () => {
    const warned: string[] = [];
    const mcp = createMcpExtension({
      id: "literal",
      server: { command: process.execPath, args: ["-e", ANSWERS_NOTIFICATIONS] },
      logger: { warn: (message) => void warned.push(message) },
      // Each restart sends notifications/initialized (and roots/list_changed below) again.
      roots: ["/tmp"],
      shutdownGraceMs: 100,
    });
    const runtime = await runtimeOf(mcp);

    const first = await runMcpTurn({ runtime, script: [response([toolCall("lookup", {})]), "Found."] });
    await mcp.setRoots(["/var"]);
    const second = await runMcpTurn({
      runtime,
      turnId: "t2",
      script: [response([toolCall("lookup", {})]), "Found again."],
    });

    expect([...first.toolResults, ...second.toolResults].map(({ isError, text }) => ({ isError, text }))).toEqual([
      { isError: false, text: "found" },
      { isError: false, text: "found" },
    ]);
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 0, totalRestarts: 0 });
    expect(mcp.status.lastError).toBeUndefined();
    expect(warned).toEqual([
      'MCP server "literal" wrote a JSON-RPC error that answers no request (its id is null: a message it could not read, or a notification it does not know); it is ignored, and so are any more such errors of this connection: {"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Method not found: notifications/initialized"}}',
    ]);
  });
});

/**
 * A server written by hand that forgets the `jsonrpc` member in its answers,
 * after a banner: its answers are no JSON-RPC messages, so the handshake
 * never completes. It exits after its answer (so the test does not wait out
 * a timeout).
 */
const FORGETS_THE_VERSION = handWrittenServer({
  name: "bare",
  tool: "unused",
  onCall: "",
  setup: 'fs.writeSync(1, "Server running on stdio\\n");',
  // Every message loses its jsonrpc member; the process exits once its first (the handshake's answer) is written.
  frame:
    '(json) => { const { jsonrpc, ...message } = JSON.parse(json); setImmediate(() => process.exit(0)); return JSON.stringify(message) + "\\n"; }',
});

describe("an answer without its jsonrpc member", { timeout: 15_000 }, () => {
  // Before, only the banner was reported (once per connection): nothing said why the handshake got no answer.
  it("is no message: the connect fails, and the host is told of it apart from the banner", async () => {
    const warned: string[] = [];
    const mcp = createMcpExtension({
      id: "bare",
      server: { command: process.execPath, args: ["-e", FORGETS_THE_VERSION] },
      logger: { warn: (message) => void warned.push(message) },
      restart: { maxRestarts: 0 },
      shutdownGraceMs: 100,
    });
    onTestFinished(() => mcp.dispose());

    await expect(mcp.connect()).rejects.toMatchObject({
      code: "connect_failed",
      message: 'MCP server "bare" could not connect: exited',
    });
    expect(warned).toEqual([
      expect.stringMatching(
        /^MCP server "bare" wrote to its stdout a line that is no JSON-RPC message; .*: Server running on stdio$/,
      ),
      expect.stringMatching(
        /^MCP server "bare" wrote an answer without its "jsonrpc": "2.0" member, which is no JSON-RPC message; .*: \{"id":0,"result":/,
      ),
    ]);
  });
});

/**
 * Writes every message pretty-printed (`JSON.stringify(message, null, 2)`,
 * a message over several lines), and for each call first prints the
 * client's request so too, as a debugging print left in; notes on stderr
 * any answer the client sends it.
 */
const PRETTY = handWrittenServer({
  name: "pretty",
  tool: "lookup",
  frame: '(json) => JSON.stringify(JSON.parse(json), null, 2) + "\\n"',
  onCall: `
    fs.writeSync(1, JSON.stringify(request, null, 2) + "\\n");
    send({ method: "notifications/message", params: { level: "warning", data: "looking up" } });
    send({ id: request.id, result: { content: [{ type: "text", text: "found {" + request.id + "}" }] } });`,
  onOther: `if ("result" in request || "error" in request) process.stderr.write("the client answered " + JSON.stringify(request.id) + "\\n");`,
});

describe("messages written over several lines (pretty-printed JSON)", { timeout: 15_000 }, () => {
  // Before, each of their lines was dropped as stray output: the connect waited out connectTimeoutMs, with no word of why.
  it("are read all the same, but for a request (a print of the client's own), and the host is told once", async () => {
    const warned: string[] = [];
    const mcp = createMcpExtension({
      id: "pretty",
      server: { command: process.execPath, args: ["-e", PRETTY] },
      connectTimeoutMs: 5_000,
      callTimeoutMs: 5_000,
      shutdownGraceMs: 100,
      logger: { warn: (message) => void warned.push(message) },
    });
    const runtime = await runtimeOf(mcp);

    const started = Date.now();
    const { toolResults } = await runMcpTurn({
      runtime,
      script: [response([toolCall("lookup", {})]), response([toolCall("lookup", {})]), "Found."],
    });

    expect(Date.now() - started).toBeLessThan(5_000);
    expect(toolResults.map(({ isError, text }) => ({ isError, text }))).toEqual([
      { isError: false, text: "found {2}" },
      { isError: false, text: "found {3}" },
    ]);
    expect(warned).toEqual([
      expect.stringMatching(/^MCP server "pretty" wrote to its stdout a line that is no JSON-RPC message; .*: \{$/),
      expect.stringMatching(
        /^MCP server "pretty" wrote a JSON-RPC message over \d+ lines \(pretty-printed JSON\), which stdio does not allow .*; it is read all the same, .*: \{/,
      ),
      'MCP server "pretty": looking up',
      'MCP server "pretty": looking up',
    ]);
    expect(mcp.status).toMatchObject({ state: "ready", totalRestarts: 0, stderrTail: "" });
  });
});
