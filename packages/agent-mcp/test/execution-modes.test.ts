import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { startHttpFixture } from "./fixtures/http-fixture.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

describe("execution mode from the readOnlyHint annotation, and progress", () => {
  it("read-only tools run in parallel, the others one at a time; progress notifications become tool updates", async () => {
    const fixture = await startHttpFixture();
    const mcp = createMcpExtension({ id: "modes", server: { url: fixture.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({
      runtime,
      script: [
        response([toolCall("sleep", { ms: 100 }), toolCall("sleep", { ms: 100 })]),
        response([toolCall("write_note", { ms: 50 }), toolCall("write_note", { ms: 50 })]),
        "Done.",
      ],
    });

    expect(turn.outcome).toEqual({ kind: "completed" });
    const assembled = await runtime.assembleTurn({ sessionId: "s1", turnId: "t2" });
    expect(Object.fromEntries(assembled.tools.map((tool) => [tool.def.name, tool.def.executionMode]))).toMatchObject({
      echo: "parallel",
      sleep: "parallel",
      write_note: "sequential",
      fail: "sequential",
    });
    const calls = fixture.log.flatMap((entry) =>
      entry.event === "begin" || entry.event === "end" ? [`${entry.event} ${entry.tool}`] : [],
    );
    expect(calls).toEqual([
      "begin sleep",
      "begin sleep",
      "end sleep",
      "end sleep",
      "begin write_note",
      "end write_note",
      "begin write_note",
      "end write_note",
    ]);
    const updates = turn.events.flatMap((event) =>
      event.type === "debug.trace" && event.payload.message === "tool_execution_update"
        ? [event.payload.attrs?.partialResult]
        : [],
    );
    expect(updates).toHaveLength(4);
    expect(updates[0]).toMatchObject({
      content: [{ type: "text", text: "halfway (1/2)" }],
      details: { server: "modes", tool: "sleep", progress: { progress: 1, total: 2, message: "halfway" } },
    });
    await runtime.dispose();
  });
});
