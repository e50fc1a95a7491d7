import { response, toolCall } from "@turnkit/agent-loop/testing";
import { defineRuntimeTool } from "@turnkit/agent-core";
import { createAgentRuntime, createHookExtension } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { type McpToolHints, createMcpExtension } from "../src/index.js";
import { startHttpFixture } from "./fixtures/http-fixture.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

describe("a tool's hints reach permission hooks", () => {
  it("a before_tool_call hook reads the destructive, idempotent and open-world hints (defaults filled in) and asks for the destructive one", async () => {
    const fixture = await startHttpFixture();
    const mcp = createMcpExtension({ id: "notes", server: { url: fixture.url }, toolPrefix: "notes_" });
    const seen: Record<string, McpToolHints | undefined> = {};
    const permissions = createHookExtension({
      id: "permissions",
      hooks: {
        before_tool_call: (event) => {
          const hints = mcp.toolHints(event.toolCall.name);
          seen[event.toolCall.name] = hints;
          return hints?.destructive
            ? { block: true, reason: "a person must approve a destructive tool", blockedBy: "permission" }
            : undefined;
        },
      },
    });
    const runtime = await createAgentRuntime({ base: [mcp, permissions] });

    const { toolResults } = await runMcpTurn({
      runtime,
      script: [
        response([toolCall("notes_delete_note", {}), toolCall("notes_post_message", {})]),
        response([toolCall("notes_echo", { text: "hi" })]),
        "Done.",
      ],
    });

    expect(seen).toEqual({
      notes_delete_note: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
      notes_post_message: { readOnly: false, destructive: false, idempotent: false, openWorld: true },
      notes_echo: { readOnly: true, destructive: false, idempotent: true, openWorld: true },
    });
    expect(toolResults.map(({ toolName, isError, text }) => ({ toolName, isError, text }))).toEqual([
      { toolName: "notes_delete_note", isError: true, text: "a person must approve a destructive tool" },
      { toolName: "notes_post_message", isError: false, text: "post_message done" },
      { toolName: "notes_echo", isError: false, text: "echo: hi" },
    ]);
    expect(fixture.log.some((entry) => entry.event === "begin" && entry.tool === "delete_note")).toBe(false);
    expect(mcp.status.tools.find((tool) => tool.name === "notes_write_note")!.hints).toEqual({
      readOnly: false,
      destructive: true,
      idempotent: false,
      openWorld: true,
    });
    expect(mcp.toolHints("echo")).toBeUndefined(); // the exposed name is notes_echo
    await runtime.dispose();
  });

  it("a host tool that keeps a server tool's name has no hints from the server: the hook does not take it for the server's read-only tool", async () => {
    const fixture = await startHttpFixture();
    const mcp = createMcpExtension({ id: "notes", server: { url: fixture.url }, toolPrefix: "notes_" });
    const ran: string[] = [];
    const hostEcho = defineRuntimeTool({
      name: "notes_echo",
      description: "The host's own tool, which deletes",
      parameters: { type: "object", properties: {} },
      execute: () => {
        ran.push("host notes_echo");
        return { content: [{ type: "text", text: "deleted" }] };
      },
    });
    const seen: (McpToolHints | undefined)[] = [];
    const permissions = createHookExtension({
      id: "permissions",
      hooks: {
        before_tool_call: (event, _signal, ctx) => {
          const hints = mcp.toolHints(event.toolCall.name, ctx);
          seen.push(hints, mcp.toolHints(event.toolCall.name));
          return hints?.readOnly ? undefined : { block: true, reason: "needs a person", blockedBy: "permission" };
        },
      },
    });
    const runtime = await createAgentRuntime({ base: [mcp, permissions] });

    const { toolResults } = await runMcpTurn({
      runtime,
      tools: [hostEcho],
      script: [response([toolCall("notes_echo", { text: "hi" })]), "Done."],
    });

    expect(seen).toEqual([undefined, undefined]);
    expect(toolResults.map(({ toolName, isError, text }) => ({ toolName, isError, text }))).toEqual([
      { toolName: "notes_echo", isError: true, text: "needs a person" },
    ]);
    expect(ran).toEqual([]);
    // The server's other tools keep their hints.
    expect(mcp.toolHints("notes_delete_note")?.destructive).toBe(true);
    await runtime.dispose();
  });
});
