import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
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
});
