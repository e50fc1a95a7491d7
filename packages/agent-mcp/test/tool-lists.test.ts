import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { createMcpExtension, McpServerError } from "../src/index.js";
import { startUnusualServer } from "./fixtures/unusual-server.js";
import { handWrittenServer } from "./fixtures/hand-written-server.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";
import { connectFailure } from "./support/connect-failure.js";

const tools: Tool[] = ["one", "two", "three", "four", "five", "six", "seven"].map((name) => ({
  name,
  inputSchema: { type: "object" },
}));

describe("tool lists as other servers page them", () => {
  it("a paged tools/list is followed to its last page, and the model gets every tool in the server's order", async () => {
    const server = await startUnusualServer({ capabilities: { tools: {} }, tools, pageSize: 3 });
    const mcp = createMcpExtension({ id: "paged", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({ runtime, script: [response([toolCall("seven", {})]), "Done."] });

    expect(server.listCursors).toEqual([undefined, "page-3", "page-6"]);
    expect(turn.model.requests[0]!.context.tools!.map((tool) => tool.name)).toEqual(tools.map((tool) => tool.name));
    expect(turn.toolResults).toMatchObject([{ toolName: "seven", isError: false, text: "seven {}" }]);
    await runtime.dispose();
  });

  it("a server that gives the same nextCursor again fails the listing with protocol_error instead of being asked forever", async () => {
    const server = await startUnusualServer({ capabilities: { tools: {} }, tools, pageSize: 2, cursors: "repeat" });
    const mcp = createMcpExtension({ id: "looping", server: { url: server.url }, restart: { maxRestarts: 0 } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const error = await connectFailure(mcp);

    expect(McpServerError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: "protocol_error",
      message:
        'MCP server "looping" answered tools/list with a nextCursor it had already given ("more"): the list would never end',
    });
    expect(server.listCursors).toEqual([undefined, "more"]);
    expect(mcp.status).toMatchObject({ state: "gave_up", tools: [] });
    await runtime.dispose();
  });

  it('an empty nextCursor ("") ends the list like an absent one', async () => {
    const server = await startUnusualServer({ capabilities: { tools: {} }, tools, cursors: "empty" });
    const mcp = createMcpExtension({ id: "empty-cursor", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const status = await mcp.connect();

    expect(server.listCursors).toEqual([undefined]);
    expect(status.tools.map((tool) => tool.name)).toEqual(tools.map((tool) => tool.name));
    await runtime.dispose();
  });

  // Before, the page failed the protocol's schema (a cursor is a string): the listing, and so the connect, failed.
  it("a null nextCursor (Python's None written as JSON) ends the list like an absent one", async () => {
    const server = await startUnusualServer({ capabilities: { tools: {} }, tools, cursors: "null" });
    const mcp = createMcpExtension({ id: "null-cursor", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const status = await mcp.connect();

    expect(server.listCursors).toEqual([undefined]);
    expect(status.tools.map((tool) => tool.name)).toEqual(tools.map((tool) => tool.name));
    await runtime.dispose();
  });

  it("a server without the tools capability (resources and prompts only) is ready with no tools, and its resources and prompts work", async () => {
    const server = await startUnusualServer({ capabilities: { resources: {}, prompts: {} } });
    const mcp = createMcpExtension({ id: "docs", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({ runtime, script: ["Hello."] });

    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.events.filter((event) => event.type === "runtime.warning")).toEqual([]);
    expect(mcp.status).toMatchObject({ state: "ready", tools: [], lastError: undefined });
    expect(server.listCursors).toEqual([]); // tools/list was never asked
    expect(await mcp.listResources()).toEqual([{ uri: "mem://readme", name: "readme", mimeType: "text/plain" }]);
    expect(await mcp.expandPrompt("hello")).toMatchObject({ text: "Say hello." });
    await runtime.dispose();
  });

  it("an entry without an input schema's type (or without an input schema) is an object schema; an entry no client can offer is left out with a warning naming it, and the server's other tools work", async () => {
    const server = await startUnusualServer({
      capabilities: { tools: {} },
      tools: [
        { name: "typed", inputSchema: { type: "object" } },
        { name: "untyped", inputSchema: { properties: { q: { type: "string" } }, required: ["q"] } },
        { name: "schemaless" },
        { name: "stringly", inputSchema: { type: "string" } },
        { inputSchema: { type: "object" } },
      ] as unknown as Tool[],
    });
    const mcp = createMcpExtension({ id: "sloppy", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({
      runtime,
      script: [response([toolCall("untyped", { q: "moon" }), toolCall("schemaless", {})]), "Done."],
    });

    expect(turn.model.requests[0]!.context.tools!.map((tool) => [tool.name, tool.parameters])).toEqual([
      ["typed", { type: "object" }],
      ["untyped", { type: "object", properties: { q: { type: "string" } }, required: ["q"] }],
      ["schemaless", { type: "object" }],
    ]);
    expect(turn.toolResults.map(({ isError, text }) => [isError, text])).toEqual([
      [false, 'untyped {"q":"moon"}'],
      [false, "schemaless {}"],
    ]);
    const warnings = turn.events.flatMap((event) => (event.type === "runtime.warning" ? [event.payload] : []));
    expect(warnings).toEqual([
      {
        code: "extension_degraded",
        extensionId: "sloppy",
        message:
          'MCP server "sloppy" listed tools no client can offer; they are left out: "stringly" (inputSchema.type: Invalid input: expected "object"), "#4" (name: Invalid input: expected string, received undefined)',
        tools: [],
      },
    ]);
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 0 });
    await runtime.dispose();
  });

  // Before, each such entry failed the protocol's schema (a description is a string) and was left out.
  it("an entry whose optional fields are null (Python's None written as JSON) is read as one without them", async () => {
    const server = await startUnusualServer({
      capabilities: { tools: {} },
      tools: [
        {
          name: "nulls",
          title: null,
          description: null,
          inputSchema: { type: "object", properties: { q: { type: "string" } } },
          outputSchema: null,
          annotations: { title: null, readOnlyHint: true, destructiveHint: null },
          _meta: null,
        },
        { name: "no_schema", description: "Has none", inputSchema: null },
      ] as unknown as Tool[],
    });
    const mcp = createMcpExtension({ id: "pythonic", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({
      runtime,
      script: [response([toolCall("nulls", { q: "x" }), toolCall("no_schema", {})]), "Done."],
    });

    expect(turn.events.filter((event) => event.type === "runtime.warning")).toEqual([]);
    expect(turn.model.requests[0]!.context.tools!.map((tool) => [tool.name, tool.parameters])).toEqual([
      ["nulls", { type: "object", properties: { q: { type: "string" } } }],
      ["no_schema", { type: "object" }],
    ]);
    expect(mcp.toolHints("nulls")).toEqual({ readOnly: true, destructive: false, idempotent: true, openWorld: true });
    expect(turn.toolResults.map(({ isError, text }) => [isError, text])).toEqual([
      [false, 'nulls {"q":"x"}'],
      [false, "no_schema {}"],
    ]);
    await runtime.dispose();
  });

  // Before, the page failed the protocol's schema (a cursor is a string): the first page's tools, and the connect, were lost.
  it("a numeric nextCursor (a server paging by offset) is followed, sent back as it came, to the last page", async () => {
    const mcp = createMcpExtension({
      id: "offsets",
      server: { command: process.execPath, args: ["-e", offsetPagingServer()] },
      shutdownGraceMs: 100,
    });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({ runtime, script: [response([toolCall("tool_5", {})]), "Done."] });

    expect(turn.model.requests[0]!.context.tools!.map((tool) => tool.name)).toEqual([
      "tool_0",
      "tool_1",
      "tool_2",
      "tool_3",
      "tool_4",
      "tool_5",
    ]);
    expect(turn.toolResults).toMatchObject([{ toolName: "tool_5", isError: false, text: "cursors: [null,2,4]" }]);
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 0, lastError: undefined });
    await runtime.dispose();
  });

  // Before, such an entry failed the protocol's schema (an output schema's type is "object") and the tool was left out.
  it("an entry whose output schema has no type (properties only, or a reference to a named object) is offered, and its results are checked against it", async () => {
    const server = await startUnusualServer({
      capabilities: { tools: {} },
      tools: [
        {
          name: "count",
          inputSchema: { type: "object" },
          outputSchema: { properties: { n: { type: "number" } }, required: ["n"] },
        },
        {
          name: "named",
          inputSchema: { type: "object" },
          outputSchema: {
            $ref: "#/definitions/Result",
            definitions: { Result: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } },
          },
        },
      ] as unknown as Tool[],
      call: (name, args) => ({ content: [{ type: "text", text: name }], structuredContent: { n: args.n } }),
    });
    const mcp = createMcpExtension({ id: "outputs", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({
      runtime,
      script: [
        response([toolCall("count", { n: 1 }), toolCall("named", { n: 2 }), toolCall("named", { n: "two" })]),
        "Done.",
      ],
    });

    expect(turn.model.requests[0]!.context.tools!.map((tool) => tool.name)).toEqual(["count", "named"]);
    expect(turn.toolResults.map(({ isError, text }) => [isError, text])).toEqual([
      [false, "count"],
      [false, "named"],
      [
        true,
        'MCP server "outputs" answered tools/call "named" with a result that does not match the tool\'s output schema: data/n must be number',
      ],
    ]);
    expect(turn.events.filter((event) => event.type === "runtime.warning")).toEqual([]);
    await runtime.dispose();
  });
});

/**
 * The source, for `node -e`, of a stdio server written by hand that pages
 * its six tools two at a time by offset, its `nextCursor` a number (the
 * offset of the next page), and answers a call with the cursors it was sent.
 */
function offsetPagingServer(): string {
  return handWrittenServer({
    name: "offsets",
    tool: "tool_0",
    setup: `
      const cursors = [];
      const page = (offset) => ({
        tools: [offset, offset + 1].map((index) => ({ name: "tool_" + index, inputSchema: { type: "object" } })),
        ...(offset + 2 < 6 && { nextCursor: offset + 2 }),
      });`,
    listResult: "(cursors.push(request.params?.cursor ?? null), page(request.params?.cursor ?? 0))",
    onCall: `send({ id: request.id, result: { content: [{ type: "text", text: "cursors: " + JSON.stringify(cursors) }] } });`,
    onOther: "if (request.id !== undefined) send({ id: request.id, result: {} });",
  });
}
