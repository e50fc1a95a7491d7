/*
 * The README's sub-agent example (readme-sub-agents.ts), shown verbatim and
 * run against two scripted models on a small workspace.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createScriptedModel, response, toolCall, usageOf } from "@turnkit/agent-loop/testing";
import { afterAll, describe, expect, it } from "vitest";
import { askWithExplorer } from "./readme-sub-agents.js";

const read = (file: string) => readFileSync(new URL(file, import.meta.url), "utf8");
const workspace = mkdtempSync(join(tmpdir(), "turnkit-sub-agents-"));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

describe("README sub-agent example", () => {
  it("README.md shows it verbatim", () => {
    const shown = read("./readme-sub-agents.ts").replaceAll('"../src/index.js"', '"@turnkit/agent-runtime"').trimEnd();
    expect(read("../README.md")).toContain(shown);
  });

  it("the parent delegates to explore, which greps the workspace; its events are indented, its cost is its own line", async () => {
    writeFileSync(join(workspace, "main.ts"), "// TODO: handle errors\nexport const x = 1;\n");
    const main = createScriptedModel([
      response(toolCall("explore", { task: "Where are the TODOs?" }), { usage: usageOf(100, 10, 0.01) }),
      response("main.ts has one TODO.", { usage: usageOf(200, 8, 0.02) }),
    ]);
    const explore = createScriptedModel([
      response(toolCall("grep", { pattern: "TODO" }), { usage: usageOf(50, 5, 0.002) }),
      response("main.ts line 1", { usage: usageOf(80, 4, 0.003) }),
    ]);
    const { outcome, transcript } = await askWithExplorer(
      {
        main: { model: main.model, streamFn: main.streamFn },
        explore: { model: explore.model, streamFn: explore.streamFn },
      },
      workspace,
      "Are there TODOs?",
    );
    expect(outcome).toEqual({ kind: "completed" });
    expect(explore.requests[1]!.context.messages.at(-1)).toMatchObject({
      role: "toolResult",
      content: [{ text: "main.ts:1: // TODO: handle errors" }],
    });
    expect(transcript.join("\n")).toBe(
      [
        "-> explore",
        "  -> grep",
        "  main.ts line 1",
        "main.ts has one TODO.",
        "explore completed: $0.005",
        "total: $0.035",
      ].join("\n"),
    );
  });
});
