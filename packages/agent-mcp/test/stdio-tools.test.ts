import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { ECHO_INPUT_SCHEMA, FIXTURE_PNG_BASE64 } from "./fixtures/fixture-server.js";
import { stdioFixture } from "./fixtures/stdio-fixture.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

describe("a stdio MCP server as a tool extension, in full turns", () => {
  it("connects at the first turn, gives the model the server's tools with their schemas unchanged, and maps every result kind", async () => {
    const fixture = stdioFixture();
    const mcp = createMcpExtension({ id: "fixture", server: fixture.server });
    const runtime = await createAgentRuntime({ base: [mcp] });
    expect(mcp.status.state).toBe("idle");
    expect(fixture.log()).toEqual([]); // lazy: building the runtime started nothing

    const turn = await runMcpTurn({
      runtime,
      script: [
        response([
          toolCall("echo", { text: "hi" }),
          toolCall("add", { a: 2, b: 3 }),
          toolCall("snapshot", {}),
          toolCall("fail", {}),
        ]),
        "Done.",
      ],
    });

    expect(turn.outcome).toEqual({ kind: "completed" });
    const offered = turn.model.requests[0]!.context.tools!;
    expect(offered.map((tool) => tool.name)).toEqual([
      "echo",
      "add",
      "snapshot",
      "fail",
      "sleep",
      "write_note",
      "wait_for_cancel",
      "hang",
      "add_tool",
      "count_words",
      "chatty",
      "delete_note",
      "post_message",
      "log_messages",
      "list_roots",
      "add_resource",
      "touch_notes",
      "add_prompt",
      "ask_model",
      "ask_person",
      "ask_person_badly",
      "garbage_line",
      "garbage_result",
      "crash",
      "garbage_then_answer",
      "close_stdout",
    ]);
    expect(offered[0]).toMatchObject({ name: "echo", description: "Echoes the text back" });
    expect(offered[0]!.parameters).toEqual(ECHO_INPUT_SCHEMA); // exactly the server's schema: nothing added, dropped or converted

    const [echo, add, snapshot, fail] = turn.toolResults;
    expect(echo).toMatchObject({
      toolName: "echo",
      isError: false,
      text: "echo: hi",
      details: { server: "fixture", tool: "echo" },
    });
    expect(add).toMatchObject({
      toolName: "add",
      isError: false,
      text: "5",
      details: { server: "fixture", tool: "add", structuredContent: { sum: 5 } },
    });
    expect(snapshot!.content).toEqual([
      { type: "text", text: "Here is the screen." },
      { type: "image", data: FIXTURE_PNG_BASE64, mimeType: "image/png" },
      { type: "text", text: "Resource file:///notes.txt, text/plain:\nremember the milk" },
      {
        type: "text",
        text: "[resource file:///logo.bin, application/octet-stream, 4 bytes of binary data: not shown]",
      },
      { type: "text", text: "Resource link file:///big.log (big.log): The full log" },
    ]);
    expect(fail).toMatchObject({ toolName: "fail", isError: true, text: "disk full" });

    expect(mcp.status).toMatchObject({
      id: "fixture",
      transport: "stdio",
      state: "ready",
      restarts: 0,
      serverInfo: { name: "turnkit-fixture", version: "1.0.0" },
    });
    expect(mcp.status.tools.find((tool) => tool.name === "write_note")).toEqual({
      name: "write_note",
      serverToolName: "write_note",
      description: "Appends a note after ms milliseconds",
      executionMode: "sequential",
      hints: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
    });
    expect(mcp.status.stderrTail).toMatch(/fixture: started as \d+/);
    await runtime.dispose();
    expect(mcp.status.state).toBe("disposed");
  });
});
