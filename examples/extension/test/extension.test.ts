import { describe, expect, it } from "vitest";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { baseExtensions } from "../src/base-extensions.js";
import { docsSearch } from "../src/docs-search-extension.js";
import { runExtensionDemo } from "../src/extension-demo.js";
import { offlineProfile } from "../src/offline-profile.js";
import { createToolBudget } from "../src/tool-budget-extension.js";

describe("extension example", () => {
  it("prints the resolved extensions, each one's contribution, the request the model received and the run", async () => {
    const lines: string[] = [];
    const outcome = await runExtensionDemo((line) => lines.push(line));
    expect(outcome).toEqual({ kind: "completed" });
    expect(lines).toEqual([
      "base:     persona, date-reminder, web-search, emoji-style",
      'profile:  {"replace":{"web-search":"docs-search"},"disable":["emoji-style"],"enable":["tool-budget"],"params":{"tool-budget":{"maxToolCalls":2}}}',
      "resolved: persona, date-reminder, docs-search, tool-budget",
      "contributions to this turn (4 on, 0 off):",
      "  persona        system prompt ×1",
      "  date-reminder  reminders date-reminder",
      "  docs-search    tools docs_search; system prompt ×1",
      "  tool-budget    user prompt prefix ×1; hooks before_tool_call×1, turn_end×1",
      "the first request the model received:",
      " system prompt:",
      "  | You are the Turnkit docs assistant. Answer in one short paragraph.",
      "  |",
      "  | Search the bundled docs with docs_search before answering.",
      "  |",
      "  | Cite the docs you used.",
      " tools: docs_search",
      " user message:",
      "  | <system-reminder>",
      "  | Today is 2025-06-02.",
      "  | </system-reminder>",
      " user message:",
      "  | (You may call at most 2 tools in this turn.)",
      "  |",
      "  | How do profiles change which extensions run?",
      "the run:",
      "  assistant: Let me search the docs.",
      '  ✓ docs_search({"keyword":"replace"}) → [docs 0.1] profile.replace swaps a base extension for an addition, in the same position.',
      '  ✓ docs_search({"keyword":"disable"}) → [docs 0.1] profile.disable leaves base extensions out.',
      '  ✗ docs_search({"keyword":"enable"}) → Tool budget of 2 calls used up for this turn',
      "  assistant: A profile disables base extensions, replaces one with an addition in its place, and enables additions after the base ones.",
      "  [tool-budget] turn-1 completed: 2/2 tool calls, blocked docs_search",
      "outcome: completed",
      'session-2 after setEnabled("date-reminder", false): on persona, docs-search, tool-budget; off date-reminder',
    ]);
  });

  it("without a profile, the base extensions run as they are and the additions stay off", async () => {
    const runtime = await createAgentRuntime({
      base: baseExtensions,
      additions: [docsSearch, createToolBudget(() => {})],
    });
    expect(runtime.extensions).toEqual(["persona", "date-reminder", "web-search", "emoji-style"]);
    const turn = await runtime.assembleTurn({ sessionId: "s", turnId: "t" });
    expect(turn.tools.map((tool) => tool.def.name)).toEqual(["web_search"]);
    expect(turn.systemPromptPrefix).toBe(
      "You are the Turnkit docs assistant. Answer in one short paragraph.\n\nUse plenty of emoji.",
    );
    expect(turn.userPromptPrefix).toBe("");
    expect(turn.reminders).toEqual([]); // no ctx.data.today: the date reminder stays silent
  });

  it("the docs tool is built per turn from the turn's data", async () => {
    const runtime = await createAgentRuntime({
      base: baseExtensions,
      additions: [docsSearch],
      profile: { replace: { "web-search": "docs-search" } },
    });
    const [v1, v2] = await Promise.all([
      runtime.assembleTurn({ sessionId: "s", turnId: "t1", data: { docsVersion: "0.1" } }),
      runtime.assembleTurn({ sessionId: "s", turnId: "t2", data: { docsVersion: "0.2" } }),
    ]);
    expect(v1.tools.map((tool) => tool.def.description)).toEqual(["Searches the Turnkit 0.1 docs for a keyword."]);
    expect(v2.tools.map((tool) => tool.def.description)).toEqual(["Searches the Turnkit 0.2 docs for a keyword."]);
  });

  it("a profile that names an extension the host does not have is refused, naming it", async () => {
    const failing = createAgentRuntime({
      base: baseExtensions,
      additions: [docsSearch, createToolBudget(() => {})],
      profile: { ...offlineProfile, enable: ["tool-budget", "telemetry"] },
    });
    await expect(failing).rejects.toMatchObject({
      code: "invalid_extension_id",
      message: expect.stringContaining('"telemetry"'),
    });
  });
});
