import { describe, expect, it } from "vitest";
import { runAgentDemo, runTurnDemo } from "../src/quickstart.js";

describe("quickstart example", () => {
  it("streams the Agent run: text, both tool calls in order, the final answer", async () => {
    const lines: string[] = [];
    await runAgentDemo((line) => lines.push(line));
    expect(lines).toEqual([
      "user: What's the weather in Paris and Tokyo?",
      "assistant: Let me look up both cities.",
      '  ▸ weather({"city":"Paris"})',
      '  ▸ weather({"city":"Tokyo"})',
      "  ✓ weather → 18 °C, light rain",
      "  ✓ weather → 24 °C, clear",
      "assistant: Paris has 18 °C with light rain; Tokyo is clear at 24 °C. Pack an umbrella for Paris.",
      "(5 messages in the transcript)",
    ]);
  });

  it("prints the RuntimeEvent stream of the same session, ending with one terminal status", async () => {
    const lines: string[] = [];
    await runTurnDemo((line) => lines.push(line));
    expect(lines[0]).toBe("#01 session.status running");
    expect(lines.at(-2)).toMatch(/^#\d+ session\.status completed$/);
    expect(lines.at(-1)).toBe("outcome: completed");
    const toolLines = lines.filter((line) => line.includes(" tool weather "));
    expect(toolLines.map((line) => line.split(" ").at(-1))).toEqual([
      "preparing",
      "preparing",
      "started",
      "started",
      "finished",
      "finished",
    ]);
    const seqs = lines.slice(0, -1).map((line) => Number(line.slice(1, 3)));
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
  });
});
