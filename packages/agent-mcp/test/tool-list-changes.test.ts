import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime, createHookExtension } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { type McpServerStatus, type McpToolHints, createMcpExtension } from "../src/index.js";
import { startHttpFixture } from "./fixtures/http-fixture.js";
import { startUnusualServer } from "./fixtures/unusual-server.js";
import { stdioFixture } from "./fixtures/stdio-fixture.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

/** Resolves once the extension reports a status matching `match`. */
function statusWhere(
  mcp: { subscribe(listener: (status: McpServerStatus) => void): () => void; status: McpServerStatus },
  match: (status: McpServerStatus) => boolean,
) {
  return new Promise<McpServerStatus>((resolve) => {
    if (match(mcp.status)) return resolve(mcp.status);
    const stop = mcp.subscribe((status) => {
      if (!match(status)) return;
      stop();
      resolve(status);
    });
  });
}

describe("notifications/tools/list_changed", () => {
  for (const transport of ["stdio", "http"] as const) {
    it(`over ${transport}: the list is fetched again for the next turn, and the new tool works`, async () => {
      let server;
      if (transport === "http") {
        const http = await startHttpFixture();
        server = { url: http.url };
      } else {
        const stdio = stdioFixture();
        server = stdio.server;
      }
      const mcp = createMcpExtension({ id: "growing", server });
      const runtime = await createAgentRuntime({ base: [mcp] });

      const first = await runMcpTurn({
        runtime,
        turnId: "t1",
        script: [response([toolCall("add_tool", {})]), "Added."],
      });
      expect(first.model.requests[0]!.context.tools!.map((tool) => tool.name)).not.toContain("late_tool");
      expect(first.toolResults[0]).toMatchObject({ text: "late_tool added", isError: false });
      await statusWhere(mcp, (status) => status.toolsOutdated);

      const second = await runMcpTurn({
        runtime,
        turnId: "t2",
        script: [response([toolCall("late_tool", {})]), "Done."],
      });
      expect(second.model.requests[0]!.context.tools!.map((tool) => tool.name)).toContain("late_tool");
      expect(second.toolResults[0]).toMatchObject({ toolName: "late_tool", text: "late but here", isError: false });
      expect(mcp.status).toMatchObject({ state: "ready", toolsOutdated: false, restarts: 0 });
      await runtime.dispose();
    });
  }
});

describe("a tool a server adds under a name another server already has", () => {
  it("is left out with a warning naming both servers; the session's turns go on and the other tools work", async () => {
    const steady = await startUnusualServer({
      capabilities: { tools: {} },
      tools: [{ name: "late_tool", inputSchema: { type: "object" } }],
    });
    const http = await startHttpFixture();
    const first = createMcpExtension({ id: "steady", server: { url: steady.url } });
    const growing = createMcpExtension({ id: "growing", server: { url: http.url } });
    const runtime = await createAgentRuntime({ base: [first, growing] });

    await runMcpTurn({ runtime, turnId: "t1", script: [response([toolCall("add_tool", {})]), "Added."] });
    await statusWhere(growing, (status) => status.toolsOutdated);

    for (const turnId of ["t2", "t3"]) {
      const turn = await runMcpTurn({
        runtime,
        turnId,
        script: [response([toolCall("late_tool", {}), toolCall("echo", { text: "still here" })]), "Done."],
      });
      expect(turn.outcome.kind).toBe("completed");
      expect(turn.events.filter((event) => event.type === "runtime.warning").map((event) => event.payload)).toEqual([
        {
          code: "extension_degraded",
          message:
            'tool "late_tool" of extension "growing" is left out of this turn: extension "steady" already has a tool of that name (give one of them another name)',
          extensionId: "growing",
          tools: ["late_tool"],
        },
      ]);
      const offered = turn.model.requests[0]!.context.tools!.map((tool) => tool.name);
      expect(offered.filter((name) => name === "late_tool")).toHaveLength(1);
      expect(turn.toolResults.map(({ toolName, text, isError }) => ({ toolName, text, isError }))).toEqual([
        { toolName: "late_tool", text: "late_tool {}", isError: false },
        { toolName: "echo", text: "echo: still here", isError: false },
      ]);
    }
    expect(growing.status.tools.map((tool) => tool.name)).toContain("late_tool");
    await runtime.dispose();
  });

  it("its hints are not the server's: toolHints describes the tool the turn runs under that name, the steady server's", async () => {
    const steady = await startUnusualServer({
      capabilities: { tools: {} },
      tools: [{ name: "late_tool", inputSchema: { type: "object" }, annotations: { destructiveHint: true } }],
    });
    const http = await startHttpFixture();
    const first = createMcpExtension({ id: "steady", server: { url: steady.url } });
    const growing = createMcpExtension({ id: "growing", server: { url: http.url } });
    const seen: Record<string, (McpToolHints | undefined)[]> = {};
    const permissions = createHookExtension({
      id: "permissions",
      hooks: {
        before_tool_call: (event, _signal, ctx) => {
          const name = event.toolCall.name;
          if (name !== "late_tool") return undefined;
          const answers = [
            first.toolHints(name, ctx),
            growing.toolHints(name, ctx),
            first.toolHints(name),
            growing.toolHints(name),
          ];
          seen[name] = answers;
          const hints = answers[0] ?? answers[1];
          return hints?.readOnly ? undefined : { block: true, reason: "needs a person", blockedBy: "permission" };
        },
      },
    });
    const runtime = await createAgentRuntime({ base: [first, growing, permissions] });

    await runMcpTurn({ runtime, turnId: "t1", script: [response([toolCall("add_tool", {})]), "Added."] });
    await statusWhere(growing, (status) => status.toolsOutdated);
    const turn = await runMcpTurn({ runtime, turnId: "t2", script: [response([toolCall("late_tool", {})]), "Done."] });

    const steadyHints = { readOnly: false, destructive: true, idempotent: false, openWorld: true };
    expect(seen.late_tool).toEqual([steadyHints, undefined, steadyHints, undefined]);
    expect(turn.toolResults.map(({ toolName, text, isError }) => ({ toolName, text, isError }))).toEqual([
      { toolName: "late_tool", text: "needs a person", isError: true },
    ]);
    // The server's own tool is listed (its status) but no turn runs it, so no hints describe it.
    expect(growing.status.tools.find((tool) => tool.name === "late_tool")?.hints.readOnly).toBe(true);
    expect(growing.toolHints("late_tool")).toBeUndefined();
    expect(growing.toolHints("echo")).toEqual({
      readOnly: true,
      destructive: false,
      idempotent: true,
      openWorld: true,
    });
    await runtime.dispose();
  });
});
