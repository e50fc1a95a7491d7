/**
 * `debug.trace` attributes are JSON-safe, whatever host code put in them: a
 * tool's partial results (`onUpdate`) may hold cycles, bigints or
 * functions, and a host that persists or forwards its traces must not
 * crash on them.
 */
import { Type } from "@sinclair/typebox";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { runCheckedTurn } from "@turnkit/agent-core/testing";
import { describe, expect, it } from "vitest";
import { defineRuntimeTool } from "../../src/index.js";

function cyclic(): Record<string, unknown> {
  const value: Record<string, unknown> = { name: "loop" };
  value.self = value;
  return value;
}

describe("debug.trace attributes", () => {
  it("carry a tool's partial results with cycles, bigints and functions as plain JSON", async () => {
    const tool = defineRuntimeTool({
      name: "progress",
      description: "Reports progress",
      parameters: Type.Object({}),
      executionMode: "parallel",
      execute: (_ctx, _input, _signal, onUpdate) => {
        onUpdate({ content: [{ type: "text", text: "half" }], details: cyclic() });
        onUpdate({ content: [], details: { bytes: 10n, format: () => "x", list: [1, undefined, Number.NaN] } });
        return { content: [{ type: "text", text: "done" }] };
      },
    });
    const turn = await runCheckedTurn({ script: [response([toolCall("progress")]), "ok"], input: { tools: [tool] } });
    expect(turn.outcome).toEqual({ kind: "completed" });
    const traces = turn.writer.ofType("debug.trace");
    for (const trace of traces) expect(() => JSON.stringify(trace)).not.toThrow();
    const updates = traces.filter((trace) => trace.payload.message === "tool_execution_update");
    expect(updates.map((trace) => (trace.payload.attrs?.partialResult as { details: unknown }).details)).toEqual([
      { name: "loop", self: "[Circular]" },
      { bytes: "10", list: [1, null, null] },
    ]);
  });
});
