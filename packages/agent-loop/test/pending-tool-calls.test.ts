import { describe, expect, it } from "vitest";
import { response, toolCall } from "../src/testing/index.js";
import { createAgentScenario, testTool } from "./support/scenario.js";

describe("Agent state: pendingToolCalls", () => {
  it("a set a listener has read never changes afterwards; each start and end of a call shows a new one", async () => {
    const tool = testTool("work");
    const calls = [toolCall("work", {}, { id: "a" }), toolCall("work", {}, { id: "b" })];
    const { agent } = createAgentScenario([response(calls), "done"], { tools: [tool] });
    const snapshots: { set: ReadonlySet<string>; ids: string[] }[] = [];
    agent.subscribe((event) => {
      if (event.type !== "tool_execution_start" && event.type !== "tool_execution_end") return;
      const set = agent.state.pendingToolCalls;
      snapshots.push({ set, ids: [...set] });
    });
    await agent.prompt("go");

    expect(snapshots.map((snapshot) => snapshot.ids)).toEqual([["a"], ["a", "b"], ["b"], []]);
    // Read again after the run: every set still holds what it held when it was read.
    expect(snapshots.map((snapshot) => [...snapshot.set])).toEqual([["a"], ["a", "b"], ["b"], []]);
    expect(new Set(snapshots.map((snapshot) => snapshot.set)).size).toBe(4);
    expect(agent.state.pendingToolCalls.size).toBe(0);
    expect(snapshots.some((snapshot) => snapshot.set === agent.state.pendingToolCalls)).toBe(false);
  });

  it("between changes every read is the same set; a set the host assigns is read back as it is and the next change starts from it", async () => {
    const tool = testTool("work");
    const { agent } = createAgentScenario([response([toolCall("work", {}, { id: "a" })]), "done"], { tools: [tool] });
    const assigned = new Set(["from-host"]);
    const seen: string[][] = [];
    agent.subscribe((event) => {
      if (
        event.type === "message_end" &&
        event.message.role === "assistant" &&
        event.message.stopReason === "toolUse"
      ) {
        // Read-only in the types, as in pi; a host without types may still assign it.
        (agent.state as { pendingToolCalls: ReadonlySet<string> }).pendingToolCalls = assigned;
        expect(agent.state.pendingToolCalls).toBe(assigned);
      }
      if (event.type === "tool_execution_start" || event.type === "tool_execution_end") {
        expect(agent.state.pendingToolCalls).toBe(agent.state.pendingToolCalls);
        seen.push([...agent.state.pendingToolCalls].sort());
      }
    });
    await agent.prompt("go");
    expect(seen).toEqual([["a", "from-host"], ["from-host"]]);
    expect([...assigned]).toEqual(["from-host"]);
  });
});
