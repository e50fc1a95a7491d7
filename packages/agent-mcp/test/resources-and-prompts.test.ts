import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { McpConfigError, McpServerError, createMcpExtension } from "../src/index.js";
import { FIXTURE_PNG_BASE64 } from "./fixtures/fixture-server.js";
import { startHttpFixture } from "./fixtures/http-fixture.js";
import { stdioFixture, waitUntil } from "./fixtures/stdio-fixture.js";
import { startUnusualServer } from "./fixtures/unusual-server.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

const png = { type: "image", data: FIXTURE_PNG_BASE64, mimeType: "image/png" };

/** The text the model received in its first request's user-side messages. */
const userSide = (turn: Awaited<ReturnType<typeof runMcpTurn>>) =>
  turn.model.requests[0]!.context.messages.filter((message) => message.role === "user").map(
    (message) => message.content,
  );

describe("resources and prompts, for the host", { timeout: 15_000 }, () => {
  it("over stdio: listed and read, a resource attached to a turn as context, a prompt expanded into the user message, list changes and a subscription that survives a restart", async () => {
    const fixture = stdioFixture();
    const mcp = createMcpExtension({ id: "docs", server: fixture.server });
    const runtime = await createAgentRuntime({ base: [mcp] });

    // Listing connects a server that was not connected yet.
    expect((await mcp.listResources()).map((resource) => resource.uri)).toEqual([
      "file:///notes.txt",
      "file:///logo.png",
      "file:///data.bin",
    ]);
    expect(mcp.status.state).toBe("ready");
    expect((await mcp.readResource("file:///notes.txt")).contents).toEqual([
      { uri: "file:///notes.txt", mimeType: "text/plain", text: "remember the milk" },
    ]);

    const context = [
      await mcp.resourceAsContext("file:///notes.txt"),
      await mcp.resourceAsContext("file:///logo.png"),
      await mcp.resourceAsContext("file:///data.bin"),
    ];
    expect(context.map((message) => [message.role, message.source, message.content])).toEqual([
      ["hidden", "docs", [{ type: "text", text: "Resource file:///notes.txt, text/plain:\nremember the milk" }]],
      ["hidden", "docs", [{ type: "text", text: "Resource file:///logo.png, image/png:" }, png]],
      [
        "hidden",
        "docs",
        [
          {
            type: "text",
            text: "[resource file:///data.bin, application/octet-stream, 4 bytes of binary data: not shown]",
          },
        ],
      ],
    ]);
    const prompt = await mcp.expandPrompt("review", { file: "main.ts" });
    expect(prompt).toEqual({
      text: "Please review main.ts.\n\nResource file:///notes.txt, text/plain:\nremember the milk",
      images: [png],
    });
    const turn = await runMcpTurn({
      runtime,
      script: ["Reviewed."],
      beforeUserMessages: [context[0]!],
      userMessage: prompt,
    });
    expect(userSide(turn)).toEqual([
      [{ type: "text", text: "Resource file:///notes.txt, text/plain:\nremember the milk" }],
      [{ type: "text", text: prompt.text }, png],
    ]);

    const refused = await mcp.getPrompt("review").catch((error: unknown) => error);
    expect(McpServerError.isInstance(refused)).toBe(true);
    expect(refused).toMatchObject({ code: "server_error" });
    expect((refused as Error).message).toMatch(
      /^MCP server "docs" answered prompts\/get "review" with an error: .*no prompt review with these arguments/,
    );

    // list_changed: the status says so until the host lists again.
    const updates: string[] = [];
    const stop = await mcp.subscribeResource("file:///notes.txt", (uri) => updates.push(uri));
    await runMcpTurn({
      runtime,
      turnId: "t2",
      script: [
        response([toolCall("add_resource", {}), toolCall("add_prompt", {}), toolCall("touch_notes", {})]),
        "Ok.",
      ],
    });
    await waitUntil(() => (updates.length === 1 && mcp.status.promptsOutdated ? true : undefined));
    expect(mcp.status).toMatchObject({ resourcesOutdated: true, promptsOutdated: true });
    expect((await mcp.listResources()).map((resource) => resource.name)).toEqual(["notes", "logo", "data", "todo"]);
    expect((await mcp.listPrompts()).map((prompt) => prompt.name)).toEqual(["review", "summarise"]);
    expect(mcp.status).toMatchObject({ resourcesOutdated: false, promptsOutdated: false });
    expect(updates).toEqual(["file:///notes.txt"]);
    expect((await mcp.readResource("file:///notes.txt")).contents[0]).toMatchObject({
      text: "remember the milk and the eggs",
    });

    // A restart makes the subscription again on the new process.
    await runMcpTurn({ runtime, turnId: "t3", script: [response([toolCall("crash", {})]), "Crashed."] });
    await mcp.connect();
    const current = fixture;
    await waitUntil(() =>
      current.log().filter((entry) => entry.event === "subscribed").length === 2 ? true : undefined,
    );
    await runMcpTurn({ runtime, turnId: "t4", script: [response([toolCall("touch_notes", {})]), "Ok."] });
    await waitUntil(() => (updates.length === 2 ? true : undefined));
    await stop();
    expect(current.log().filter((entry) => entry.event === "unsubscribed")).toEqual([
      { event: "unsubscribed", uri: "file:///notes.txt" },
    ]);
    await runtime.dispose();
    await expect(mcp.listResources()).rejects.toMatchObject({ code: "server_unavailable" });
  });

  it("over Streamable HTTP: the same requests and a resource update", async () => {
    const http = await startHttpFixture();
    const mcp = createMcpExtension({ id: "remote", server: { url: http.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    expect((await mcp.listPrompts()).map((prompt) => prompt.name)).toEqual(["review"]);
    expect(await mcp.expandPrompt("review", { file: "a.ts" })).toMatchObject({
      text: expect.stringMatching(/^Please review a\.ts\./),
    });
    expect((await mcp.resourceAsContext("file:///notes.txt")).content).toEqual([
      { type: "text", text: "Resource file:///notes.txt, text/plain:\nremember the milk" },
    ]);
    const updates: string[] = [];
    await mcp.subscribeResource("file:///notes.txt", (uri) => updates.push(uri));
    await runMcpTurn({ runtime, script: [response([toolCall("touch_notes", {})]), "Ok."] });
    await waitUntil(() => (updates.length === 1 ? true : undefined));
    await expect(mcp.readResource("file:///missing")).rejects.toMatchObject({ code: "server_error" });
    await runtime.dispose();
  });

  it("a change the server announces while the host lists its resources keeps the list outdated: the answer may not have it", async () => {
    const server = await startUnusualServer({
      capabilities: { resources: { listChanged: true } },
      changeWhileListing: true,
    });
    const mcp = createMcpExtension({ id: "moving", server: { url: server.url } });

    await mcp.listResources();
    expect(mcp.status.resourcesOutdated).toBe(true);
    await mcp.listResources(); // nothing announced this time
    expect(mcp.status.resourcesOutdated).toBe(false);
    await mcp.dispose();
  });

  it("a URI, prompt name, argument or listener the protocol does not take is the host's McpConfigError naming it, and nothing is sent", async () => {
    const server = await startUnusualServer({ capabilities: { resources: { subscribe: true }, prompts: {} } });
    const mcp = createMcpExtension({ id: "docs", server: { url: server.url } });
    const refusals = await Promise.all(
      [
        () => mcp.readResource(42 as never),
        () => mcp.resourceAsContext(""),
        () => mcp.subscribeResource(undefined as never, () => {}),
        () => mcp.subscribeResource("mem://readme", "log it" as never),
        () => mcp.getPrompt("", {}),
        () => mcp.getPrompt("hello", "file=a.ts" as never),
        () => mcp.expandPrompt("hello", { file: "a.ts", count: 3 as never }),
      ].map((call) =>
        call().then(
          () => "resolved",
          (error: McpConfigError) => ({
            isConfigError: McpConfigError.isInstance(error),
            field: error.field,
            message: error.message,
          }),
        ),
      ),
    );
    expect(refusals).toEqual([
      { isConfigError: true, field: "uri", message: "readResource: uri must be a non-empty string, got number" },
      {
        isConfigError: true,
        field: "uri",
        message: "resourceAsContext: uri must be a non-empty string, got an empty string",
      },
      {
        isConfigError: true,
        field: "uri",
        message: "subscribeResource: uri must be a non-empty string, got undefined",
      },
      { isConfigError: true, field: "listener", message: "subscribeResource: listener must be a function, got string" },
      {
        isConfigError: true,
        field: "name",
        message: "getPrompt: name must be a non-empty string, got an empty string",
      },
      { isConfigError: true, field: "args", message: "getPrompt: args must be an object of strings, got string" },
      {
        isConfigError: true,
        field: "args.count",
        message: "expandPrompt: args.count must be a string (prompt arguments are strings), got number",
      },
    ]);
    expect(mcp.status.state).toBe("idle");
    expect(server.subscriptions).toEqual([]);
    await expect(mcp.expandPrompt("hello")).resolves.toEqual({ text: "Say hello." });
    await mcp.dispose();
  });

  it("resource templates are listed, every page, and a URI made from one is read", async () => {
    const server = await startUnusualServer({
      capabilities: { resources: {} },
      resourceTemplates: [
        { uriTemplate: "file:///{path}", name: "file", mimeType: "text/plain" },
        { uriTemplate: "db://{table}/{id}", name: "row", description: "One row" },
      ],
      contents: (uri) => [{ uri, text: `row of ${uri}` }],
    });
    const mcp = createMcpExtension({ id: "db", server: { url: server.url } });
    expect(await mcp.listResourceTemplates()).toEqual([
      { uriTemplate: "file:///{path}", name: "file", mimeType: "text/plain" },
      { uriTemplate: "db://{table}/{id}", name: "row", description: "One row" },
    ]);
    expect((await mcp.resourceAsContext("db://users/42")).content).toEqual([
      { type: "text", text: "Resource db://users/42:\nrow of db://users/42" },
    ]);
    await mcp.dispose();
  });

  it("the server's instructions from the handshake are the host's, in status.serverInfo; no turn gets them unasked", async () => {
    const server = await startUnusualServer({
      capabilities: { tools: {} },
      tools: [{ name: "search", inputSchema: { type: "object" } }],
      instructions: "Call search before answering questions about the codebase.",
    });
    const mcp = createMcpExtension({ id: "code", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });
    const turn = await runMcpTurn({ runtime, script: ["Hello."] });
    expect(mcp.status.serverInfo).toEqual({
      name: "unusual",
      version: "0.1.0",
      instructions: "Call search before answering questions about the codebase.",
    });
    expect(turn.model.requests[0]!.context.systemPrompt).toBe("You use tools.");
    await runtime.dispose();
  });

  it("requests the host makes while the server is being connected wait for that connection, by a turn's assembly or one another", async () => {
    const server = await startUnusualServer({ capabilities: { tools: {}, resources: {}, prompts: {} } });
    const host = createMcpExtension({ id: "docs", server: { url: server.url } });
    const [resources, prompts, readme] = await Promise.all([
      host.listResources(),
      host.listPrompts(),
      host.readResource("mem://readme"),
    ]);
    expect([resources.length, prompts.length, readme.contents.length]).toEqual([1, 1, 1]);
    await host.dispose();

    const mcp = createMcpExtension({ id: "docs", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });
    const assembling = runtime.assembleTurn({ sessionId: "s1", turnId: "t1" });
    expect(mcp.status.state).toBe("connecting");
    expect((await mcp.listPrompts()).map((prompt) => prompt.name)).toEqual(["hello"]);
    await assembling;
    expect(server.listCursors).toEqual([undefined, undefined]); // one connection each time
    await runtime.dispose();
  });
});
