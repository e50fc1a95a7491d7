import { TurnkitConfigError } from "@turnkit/agent-core";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { type HttpFixture, startHttpFixture } from "./fixtures/http-fixture.js";
import { startUnusualServer } from "./fixtures/unusual-server.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

async function twoServers(options: { toolNamePrefix?: string } = {}): Promise<[HttpFixture, HttpFixture]> {
  return [await startHttpFixture(options), await startHttpFixture(options)];
}

describe("tool names across servers", () => {
  it("two servers with the same tool names fail the assembly with the runtime's duplicate_tool error naming both", async () => {
    const [a, b] = await twoServers();
    const runtime = await createAgentRuntime({
      base: [
        createMcpExtension({ id: "alpha", server: { url: a.url } }),
        createMcpExtension({ id: "beta", server: { url: b.url } }),
      ],
    });
    const error = await runtime.assembleTurn({ sessionId: "s1", turnId: "t1" }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(TurnkitConfigError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: "duplicate_tool",
      message: 'assembleTurn: tool "echo" is contributed by both extension "alpha" and extension "beta"',
    });
    await runtime.dispose();
  });

  it("a prefix or an explicit mapping separates them, and each call reaches its own server under the server's name", async () => {
    const [a, b] = await twoServers();
    const alpha = createMcpExtension({ id: "alpha", server: { url: a.url }, toolPrefix: "alpha_" });
    const beta = createMcpExtension({
      id: "beta",
      server: { url: b.url },
      toolPrefix: "beta_",
      toolNames: { echo: "repeat" },
    });
    const runtime = await createAgentRuntime({ base: [alpha, beta] });

    const turn = await runMcpTurn({
      runtime,
      script: [
        response([
          toolCall("alpha_echo", { text: "a" }),
          toolCall("repeat", { text: "b" }),
          toolCall("beta_add", { a: 1, b: 2 }),
        ]),
        "Done.",
      ],
    });

    const offered = turn.model.requests[0]!.context.tools!.map((tool) => tool.name);
    expect(offered.slice(0, 3)).toEqual(["alpha_echo", "alpha_add", "alpha_snapshot"]);
    expect(offered).toContain("repeat");
    expect(offered).toContain("beta_add");
    expect(turn.toolResults.map(({ toolName, text, details }) => ({ toolName, text, details }))).toEqual([
      { toolName: "alpha_echo", text: "echo: a", details: { server: "alpha", tool: "echo" } },
      { toolName: "repeat", text: "echo: b", details: { server: "beta", tool: "echo" } },
      { toolName: "beta_add", text: "3", details: { server: "beta", tool: "add", structuredContent: { sum: 3 } } },
    ]);
    expect(
      a.log.filter((entry) => entry.event === "begin").map((entry) => entry.event === "begin" && entry.tool),
    ).toEqual(["echo"]);
    expect(
      b.log.filter((entry) => entry.event === "begin").map((entry) => entry.event === "begin" && entry.tool),
    ).toEqual(["echo", "add"]);
    expect(beta.status.tools.find((tool) => tool.serverToolName === "echo")).toMatchObject({
      name: "repeat",
      executionMode: "parallel",
    });
    await runtime.dispose();
  });

  it("names that providers refuse (dots, slashes) are made safe, and calls still use the server's name", async () => {
    const [server] = await twoServers({ toolNamePrefix: "files.v2/" });
    const mcp = createMcpExtension({ id: "files", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({
      runtime,
      script: [response([toolCall("files_v2_echo", { text: "safe" })]), "Done."],
    });

    expect(turn.toolResults[0]).toMatchObject({
      toolName: "files_v2_echo",
      text: "echo: safe",
      details: { server: "files", tool: "files.v2/echo" },
    });
    await runtime.dispose();
  });
});

describe("tool names one server makes the same", () => {
  const long = (tail: string) => `search_the_entire_knowledge_base_of_the_organisation_for_documents_${tail}`;
  const serverNames = ["搜索", "翻译", "get.user", "get_user", long("by_title"), long("by_author"), "echo", "echo"];

  it("names made safe that would collide or be cut end in a hash of the server's name; each call reaches its own tool, and the turn runs", async () => {
    const server = await startUnusualServer({
      capabilities: { tools: {} },
      tools: serverNames.map((name) => ({ name, description: `the tool ${name}`, inputSchema: { type: "object" } })),
    });
    const mcp = createMcpExtension({ id: "wide", server: { url: server.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });
    const status = await mcp.connect();
    const exposed = status.tools.map((tool) => tool.name);

    expect(status.tools.map((tool) => tool.serverToolName)).toEqual(serverNames.slice(0, 7)); // echo once
    expect(exposed).toEqual([
      expect.stringMatching(/^___[0-9a-f]{6}$/),
      expect.stringMatching(/^___[0-9a-f]{6}$/),
      expect.stringMatching(/^get_user_[0-9a-f]{6}$/),
      "get_user",
      expect.stringMatching(/^search_the_entire_knowledge_base_of_the_organisation_for__[0-9a-f]{6}$/),
      expect.stringMatching(/^search_the_entire_knowledge_base_of_the_organisation_for__[0-9a-f]{6}$/),
      "echo",
    ]);
    expect(new Set(exposed).size).toBe(exposed.length);
    for (const name of exposed) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);

    const turn = await runMcpTurn({
      runtime,
      script: [response(exposed.map((name) => toolCall(name, {}))), "Done."],
    });

    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.toolResults.map((result) => (result.details as { tool: string }).tool)).toEqual(
      serverNames.slice(0, 7),
    );
    expect(turn.toolResults.every((result) => !result.isError)).toBe(true);
    const again = await runMcpTurn({ runtime, turnId: "t2", script: ["Done."] });
    expect(again.model.requests[0]!.context.tools!.map((tool) => tool.name)).toEqual(exposed); // the same names next time
    await runtime.dispose();
  });
});
