/*
 * agent-mcp against a server written apart from this repository, as the
 * MCP SDK's users write one (`McpServer`, zod schemas): over stdio and
 * over Streamable HTTP with sessions, and without (a new server per
 * request, answering with an event stream or in JSON). What each odd
 * answer becomes for the model, a server that hangs up in the middle of a
 * call, progress, logging, sampling and elicitation from a tool, and a
 * tool list that follows the server's enable, disable and remove.
 */
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it, onTestFinished } from "vitest";
import { type McpExtensionOptions, createMcpExtension } from "../src/index.js";
import { APART_PNG_BASE64, type ApartHttpMode, startApartHttpServer } from "./fixtures/apart-server.js";
import { APART_STDIO_BUNDLE } from "./fixtures/stdio-fixture.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

type Transport = "stdio" | ApartHttpMode;

/** The extension of the apart server over `transport`, with `options` on top of the defaults. */
async function apartExtension(transport: Transport, options: Partial<McpExtensionOptions> = {}) {
  if (transport === "stdio")
    return createMcpExtension({
      id: "apart",
      server: { command: process.execPath, args: [APART_STDIO_BUNDLE] },
      ...options,
    });
  const http = await startApartHttpServer(transport);
  onTestFinished(() => http.close());
  return createMcpExtension({ id: "apart", server: { url: http.url }, ...options });
}

describe("a server written with the SDK's McpServer, apart from this repository", () => {
  for (const transport of ["stdio", "stateful", "stateless", "stateless-json"] as const) {
    it(`over ${transport}: odd answers are results the model can read, and a hang-up mid-call is an error naming the server; the next turn works`, async () => {
      const mcp = await apartExtension(transport);
      const runtime = await createAgentRuntime({ base: [mcp] });
      const turn = await runMcpTurn({
        runtime,
        script: [
          response([
            // 150,000 characters, a character of two UTF-16 units where the 100,000th falls.
            toolCall("long_text", { size: 150_000, emoji: 99_999 }),
            toolCall("count_words", {}),
            toolCall("quota", {}),
            toolCall("attach_logo", {}),
            // A stateless server cannot be answered (see below).
            ...(transport === "stdio" || transport === "stateful" ? [toolCall("ask_unsupported", {})] : []),
          ]),
          "Done.",
        ],
      });
      const [long, counted, quota, logo, asked] = turn.toolResults;

      expect(turn.outcome).toEqual({ kind: "completed" });
      // Text beyond maxResultChars is cut, never between the halves of a character, and the model is told.
      expect(long!.isError).toBe(false);
      expect(long!.content).toEqual([
        { type: "text", text: "x".repeat(99_999) },
        {
          type: "text",
          text: '[MCP server "apart" answered tools/call "long_text" with 150000 characters of text; only the first 99999 are shown (maxResultChars)]',
        },
      ]);
      expect(long!.details).toEqual({
        server: "apart",
        tool: "long_text",
        truncated: { chars: 150_000, shownChars: 99_999 },
      });
      // McpServer checks its own output schema and answers with an error result: the model reads it.
      expect(counted).toMatchObject({ isError: true, details: { server: "apart", tool: "count_words" } });
      expect(counted!.text).toMatch(/^MCP error -32602: Output validation error: /);
      // An error result's structuredContent need not match the output schema: it reaches the host.
      expect(quota).toMatchObject({
        isError: true,
        text: "quota exceeded",
        details: { structuredContent: { reason: "quota", retryAfterS: 30 } },
      });
      // A request the client does not serve is refused as the protocol says: the server's call goes on.
      if (asked)
        expect(asked).toMatchObject({ isError: false, text: "the client refused: MCP error -32601: Method not found" });
      expect(logo!.content).toEqual([
        { type: "text", text: "Resource apart://logo.png, image/png:" },
        { type: "image", data: APART_PNG_BASE64, mimeType: "image/png" },
      ]);

      const hungUp = await runMcpTurn({
        runtime,
        turnId: "t2",
        script: [response([toolCall("hang_up", {})]), "Done."],
      });
      expect(hungUp.outcome).toEqual({ kind: "completed" });
      expect(hungUp.toolResults[0]).toMatchObject({
        isError: true,
        details: {
          server: "apart",
          tool: "hang_up",
          error: transport === "stdio" ? "server_exited" : "transport_error",
        },
      });
      expect(hungUp.toolResults[0]!.text).toMatch(/^MCP server "apart" /);

      const next = await runMcpTurn({
        runtime,
        turnId: "t3",
        script: [response([toolCall("long_text", { size: 3 })]), "Done."],
      });
      expect(next.toolResults[0]).toMatchObject({ isError: false, text: "xxx" });
      await runtime.dispose();
    });
  }

  for (const transport of ["stateless", "stateless-json"] as const) {
    it(`over ${transport}: a request the server makes during a call is never answered (the answer goes to a new server), so the call ends at callTimeoutMs`, async () => {
      const mcp = await apartExtension(transport, { callTimeoutMs: 400 });
      const runtime = await createAgentRuntime({ base: [mcp] });
      const turn = await runMcpTurn({ runtime, script: [response([toolCall("ask_unsupported", {})]), "Done."] });
      expect(turn.toolResults[0]).toMatchObject({
        isError: true,
        text: 'MCP server "apart" did not answer tools/call "ask_unsupported" within 400 ms',
        details: { error: "call_timeout" },
      });
      expect(mcp.status.state).toBe("ready");
      await runtime.dispose();
    });
  }

  for (const transport of ["stdio", "stateful"] as const) {
    it(`over ${transport}: a tool that reports progress, logs, asks the turn's model and asks the person, as McpServer's users write it`, async () => {
      const logged: string[] = [];
      const mcp = await apartExtension(transport, {
        sampling: {},
        elicitation: {},
        logLevel: "info",
        logger: { debug: (message) => void logged.push(message) },
      });
      const runtime = await createAgentRuntime({ base: [mcp] });
      const updates: unknown[] = [];
      const turn = await runMcpTurn({
        runtime,
        script: [
          response([toolCall("summarize", { text: "a long text" }), toolCall("confirm", {})]),
          "Short.",
          "Done.",
        ],
        answerActionRequest: () => ({ action: "accept", content: { sure: true } }),
        onEvent: (event) => {
          if (event.type === "debug.trace" && event.payload.message === "tool_execution_update") updates.push(event);
        },
      });
      expect(turn.outcome).toEqual({ kind: "completed" });
      expect(turn.toolResults.map((result) => [result.isError, result.text])).toEqual([
        [false, "summary: Short."],
        [false, 'person: accept {"sure":true}'],
      ]);
      expect(turn.model.requests[1]!.context.messages).toMatchObject([
        { role: "user", content: [{ type: "text", text: "Summarize: a long text" }] },
      ]);
      expect(logged).toContain('MCP server "apart" (summarize): summarizing 11 chars');
      expect(JSON.stringify(updates)).toContain("asking the model (1/2)");
      await runtime.dispose();
    });
  }

  for (const transport of ["stdio", "stateful", "stateless", "stateless-json"] as const) {
    it(`over ${transport}: progress for tokens the client never gave is ignored; the call's own progress and the log message reach the host, the call its answer`, async () => {
      const logged: string[] = [];
      const mcp = await apartExtension(transport, {
        callTimeoutMs: 5_000,
        logger: { debug: (message) => void logged.push(message), warn: (message) => void logged.push(message) },
      });
      const runtime = await createAgentRuntime({ base: [mcp] });
      const updates: unknown[] = [];
      const started = Date.now();
      const turn = await runMcpTurn({
        runtime,
        script: [response([toolCall("stray_progress", {})]), "Done."],
        onEvent: (event) => {
          if (event.type === "debug.trace" && event.payload.message === "tool_execution_update") updates.push(event);
        },
      });

      expect(Date.now() - started).toBeLessThan(5_000);
      expect(turn.toolResults.map((result) => [result.isError, result.text])).toEqual([[false, "reported"]]);
      // A JSON response holds the answer alone: the server's notifications of a stateless JSON call are not sent.
      const heard = transport !== "stateless-json";
      expect(updates).toHaveLength(heard ? 1 : 0);
      expect(logged).toEqual(heard ? ['MCP server "apart" (stray): progress sent'] : []);
      expect(mcp.status).toMatchObject({ state: "ready", totalRestarts: 0, lastError: undefined });
      await runtime.dispose();
    });
  }

  it("over stdio: the tool list follows enable, disable and remove from the next turn on; resources are blobs and templates complete", async () => {
    const mcp = await apartExtension("stdio");
    const runtime = await createAgentRuntime({ base: [mcp] });
    const offered = (turn: Awaited<ReturnType<typeof runMcpTurn>>) =>
      turn.model.requests[0]!.context.tools!.map((tool) => tool.name).includes("late");

    const t1 = await runMcpTurn({ runtime, script: [response([toolCall("toggle_late", { op: "disable" })]), "Ok."] });
    const t2 = await runMcpTurn({
      runtime,
      turnId: "t2",
      script: [response([toolCall("toggle_late", { op: "enable" })]), "Ok."],
    });
    const t3 = await runMcpTurn({
      runtime,
      turnId: "t3",
      script: [response([toolCall("late", {}), toolCall("toggle_late", { op: "remove" })]), "Ok."],
    });
    const t4 = await runMcpTurn({ runtime, turnId: "t4", script: ["Ok."] });
    expect([offered(t1), offered(t2), offered(t3), offered(t4)]).toEqual([true, false, true, false]);
    expect(t3.toolResults[0]).toMatchObject({ isError: false, text: "late here" });
    // A name with a character providers refuse is offered made safe, and its calls reach the server's name.
    const names = t4.model.requests[0]!.context.tools!.map((tool) => tool.name);
    expect(names.filter((name) => !/^[A-Za-z0-9_-]{1,64}$/.test(name))).toEqual([]);
    const read = await runMcpTurn({
      runtime,
      turnId: "t5",
      script: [response([toolCall("notes_read", {})]), "Ok."],
    });
    expect(read.toolResults[0]).toMatchObject({ isError: false, text: "remember the milk" });

    expect((await mcp.readResource("apart://logo.png")).contents).toEqual([
      { uri: "apart://logo.png", mimeType: "image/png", blob: APART_PNG_BASE64 },
    ]);
    expect((await mcp.listResourceTemplates()).map((template) => template.uriTemplate)).toEqual([
      "apart://greetings/{name}",
    ]);
    const completed = await mcp.client!.complete({
      ref: { type: "ref/resource", uri: "apart://greetings/{name}" },
      argument: { name: "name", value: "a" },
    });
    expect(completed.completion.values).toEqual(["ada", "alan"]);
    expect((await mcp.readResource("apart://greetings/ada")).contents).toEqual([
      { uri: "apart://greetings/ada", text: "Hello, ada!" },
    ]);
    await runtime.dispose();
  });
});
