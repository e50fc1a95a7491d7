/**
 * What a stdio server writes that is no message: a byte-order mark before a
 * line, empty and blank lines. Neither is a message, and neither closes
 * the connection as a protocol error. And a line that holds several: a
 * batch.
 */
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { StdoutLines } from "../src/stdout-lines.js";
import { handWrittenServer } from "./fixtures/hand-written-server.js";
import { runMcpTurn, runtimeOf } from "./support/run-mcp-turn.js";

/**
 * A server that starts its output with a byte-order mark (as a .NET
 * server's first write does) and writes an empty line, a blank line and a
 * CRLF blank line after each message.
 */
const MARK_AND_BLANK_LINES = handWrittenServer({
  name: "marked",
  tool: "ping",
  setup: 'let first = true; process.stdin.on("end", () => process.exit(0));',
  frame:
    '(json) => { const line = (first ? "\\uFEFF" : "") + json + "\\n\\n  \\t\\n\\r\\n"; first = false; return line; }',
  onCall: 'send({ id: request.id, result: { content: [{ type: "text", text: "pong" }] } });',
});

describe("lines that are no messages", { timeout: 15_000 }, () => {
  // Before, the mark made the first answer (the handshake's) "not JSON-RPC" and the connect failed;
  // an empty line between messages closed the connection as a protocol error.
  it("a byte-order mark before the first message and blank lines between messages change nothing", async () => {
    const mcp = createMcpExtension({
      id: "marked",
      server: { command: process.execPath, args: ["-e", MARK_AND_BLANK_LINES] },
    });
    const runtime = await runtimeOf(mcp);

    const { outcome, toolResults } = await runMcpTurn({
      runtime,
      script: [response([toolCall("ping", {})]), response([toolCall("ping", {})]), "Both answered."],
    });

    expect(outcome).toEqual({ kind: "completed" });
    expect(toolResults).toEqual([
      expect.objectContaining({ isError: false, text: "pong" }),
      expect.objectContaining({ isError: false, text: "pong" }),
    ]);
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 0 });
  });
});

/**
 * A server that answers each call with a batch, as protocol version
 * 2025-03-26 allows: one line holding a JSON array of a log message and
 * the call's answer.
 */
const BATCHES = handWrittenServer({
  name: "batches",
  tool: "ping",
  onCall: `fs.writeSync(1, JSON.stringify([
    { jsonrpc: "2.0", method: "notifications/message", params: { level: "warning", data: "batched" } },
    { jsonrpc: "2.0", id: request.id, result: { content: [{ type: "text", text: "pong" }] } },
  ]) + "\\n");`,
});

describe("a line that holds a batch of messages", { timeout: 15_000 }, () => {
  // Before, the array was read as one malformed message: the connection was lost and the call failed.
  it("is read as its messages, in order: the log message reaches the host's logger and the call gets its answer", async () => {
    const logged: string[] = [];
    const mcp = createMcpExtension({
      id: "batches",
      server: { command: process.execPath, args: ["-e", BATCHES] },
      logger: { warn: (message) => void logged.push(message) },
    });
    const runtime = await runtimeOf(mcp);

    const { outcome, toolResults } = await runMcpTurn({
      runtime,
      script: [response([toolCall("ping", {})]), response([toolCall("ping", {})]), "Both answered."],
    });

    expect(outcome).toEqual({ kind: "completed" });
    expect(toolResults.map(({ isError, text }) => ({ isError, text }))).toEqual([
      { isError: false, text: "pong" },
      { isError: false, text: "pong" },
    ]);
    expect(logged).toEqual(['MCP server "batches": batched', 'MCP server "batches": batched']);
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 0 });
  });
});

describe("a long message read in pipe chunks", () => {
  // Before, the unfinished line was one buffer copied and searched again at every chunk: 32 MiB took seconds.
  it("costs time in proportion to its length: 32 MiB in 64 KiB chunks within a second, read whole", () => {
    const chunkBytes = 64 * 1024;
    const chunks = 512;
    const lines = new StdoutLines(chunks * chunkBytes + 1);
    const chunk = Buffer.alloc(chunkBytes, "x");
    const started = performance.now();
    for (let index = 0; index < chunks; index++) {
      lines.append(index === chunks - 1 ? Buffer.concat([chunk.subarray(1), Buffer.from("\n")]) : chunk);
      if (index < chunks - 1) expect(lines.next()).toBeUndefined();
    }
    const line = lines.next();
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(line?.length).toBe(chunks * chunkBytes - 1);
    expect(lines.next()).toBeUndefined();
  });

  it("still frames as before: lines split across chunks, several to a chunk, CRLF, a mark, blank lines, the limit", () => {
    const lines = new StdoutLines(64);
    lines.append(Buffer.from('\uFEFF{"a":1}\r\n\n  \n{"b"'));
    lines.append(Buffer.from(':2}\n{"c":3}'));
    expect([lines.next(), lines.next(), lines.next()]).toEqual(['{"a":1}', '{"b":2}', undefined]);
    lines.append(Buffer.from("\n"));
    expect(lines.next()).toBe('{"c":3}');
    // What is held counts against the limit until it is taken; the unfinished line too.
    lines.append(Buffer.alloc(60, "y"));
    expect(() => lines.append(Buffer.alloc(5, "y"))).toThrow("ReadBuffer exceeded maximum size of 64 bytes");
    // Nothing is held after the failure.
    lines.append(Buffer.from("z\n"));
    expect(lines.next()).toBe("z");
  });
});
