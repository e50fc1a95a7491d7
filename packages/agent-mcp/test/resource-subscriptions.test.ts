import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { type McpServerError, createMcpExtension } from "../src/index.js";
import { waitUntil } from "./fixtures/stdio-fixture.js";
import { startUnusualServer } from "./fixtures/unusual-server.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

describe("resource subscriptions", () => {
  it("an update the server sends for a sub-resource of a subscribed URI reaches its listeners, named by the server's URI", async () => {
    const server = await startUnusualServer({
      capabilities: { tools: {}, resources: { subscribe: true } },
      tools: [{ name: "save", inputSchema: { type: "object" } }],
      call: async (_name, _args, notify) => {
        for (const uri of ["file:///project/src/a.ts", "file:///projectile", "mem://readme", "file:///project/"])
          await notify({ method: "notifications/resources/updated", params: { uri } });
        return { content: [{ type: "text", text: "saved" }] };
      },
    });
    const mcp = createMcpExtension({ id: "files", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });
    const heard: string[] = [];
    await mcp.subscribeResource("file:///project", (uri) => heard.push(`project: ${uri}`));
    await mcp.subscribeResource("mem://readme", (uri) => heard.push(`readme: ${uri}`));

    // The notifications travel on the call's stream, before its answer.
    await runMcpTurn({ runtime, script: [response([toolCall("save", {})]), "Saved."] });
    expect(heard).toEqual(["project: file:///project/src/a.ts", "readme: mem://readme", "project: file:///project/"]);
    await runtime.dispose();
  });

  it("a second listener of a URI whose subscription is on its way waits for the server's answer, and shares its refusal", async () => {
    let answer: ((refusal?: string) => void) | undefined;
    const server = await startUnusualServer({
      capabilities: { tools: {}, resources: { subscribe: true } },
      tools: [{ name: "save", inputSchema: { type: "object" } }],
      subscribe: (uri) =>
        new Promise<void>((resolve, reject) => {
          answer = (refusal) =>
            refusal ? reject(new McpError(ErrorCode.InvalidParams, `${refusal} ${uri}`)) : resolve();
        }),
      call: async (_name, _args, notify) => {
        await notify({ method: "notifications/resources/updated", params: { uri: "mem://log" } });
        return { content: [{ type: "text", text: "saved" }] };
      },
    });
    const mcp = createMcpExtension({ id: "files", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });
    await mcp.connect();
    const heard: string[] = [];
    const settled: string[] = [];
    const subscribe = (name: string) =>
      mcp
        .subscribeResource("mem://log", (uri) => heard.push(`${name}: ${uri}`))
        .then(
          () => void settled.push(`${name} subscribed`),
          (error: McpServerError) => void settled.push(`${name} refused: ${error.code} ${error.message}`),
        );

    const refused = [subscribe("first"), subscribe("second")];
    const refuse = await waitUntil(() => answer);
    refuse("no updates for");
    await Promise.all(refused);
    const refusal =
      'server_error MCP server "files" answered resources/subscribe "mem://log" with an error: MCP error -32602: no updates for mem://log';
    expect(settled).toEqual([`first refused: ${refusal}`, `second refused: ${refusal}`]);

    settled.length = 0;
    answer = undefined;
    const accepted = [subscribe("third"), subscribe("fourth")];
    const accept = await waitUntil(() => answer);
    expect(settled).toEqual([]);
    accept();
    await Promise.all(accepted);
    expect(settled).toEqual(["third subscribed", "fourth subscribed"]);
    expect(server.subscriptions).toEqual(["subscribe mem://log"]);

    await runMcpTurn({ runtime, script: [response([toolCall("save", {})]), "Saved."] });
    expect(heard).toEqual(["third: mem://log", "fourth: mem://log"]);
    await runtime.dispose();
  });

  it("subscriptions are made again on a new session; one the server now refuses is kept and its refusal is the status's lastError", async () => {
    let refuse = false;
    const server = await startUnusualServer({
      capabilities: { resources: { subscribe: true } },
      subscribe: (uri) => {
        if (refuse) throw new McpError(ErrorCode.InvalidParams, `no longer watching ${uri}`);
      },
    });
    const mcp = createMcpExtension({ id: "files", server: { url: server.url } });
    await mcp.subscribeResource("mem://readme", () => {});
    await mcp.subscribeResource("mem://log", () => {});
    server.forgetSessions();
    refuse = true;
    await mcp.listResources(); // answered 404: a new session, where both are asked for again
    const status = await waitUntil(() =>
      mcp.status.lastError?.message.includes("resources/subscribe") ? mcp.status : undefined,
    );
    expect(status.lastError).toMatchObject({
      code: "server_error",
      message: expect.stringMatching(
        /^MCP server "files" answered resources\/subscribe "mem:\/\/(readme|log)" with an error: MCP error -32602: no longer watching mem:\/\/(readme|log)$/,
      ),
    });
    expect(status.state).toBe("ready");
    await mcp.dispose();
  });
});
