import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_MCP_SERVER_SCRIPT } from "../src/defaults.js";
import { createTempRoot, runScripted, type ScriptedRun } from "./support/scripted-run.js";

describe("--mcp: MCP servers next to the demo's own", () => {
  let root: Awaited<ReturnType<typeof createTempRoot>>;
  let run: ScriptedRun;

  beforeAll(async () => {
    root = await createTempRoot();
    run = await runScripted(root.dir, {
      cli: {
        mcp: [
          { command: process.execPath, args: [DEMO_MCP_SERVER_SCRIPT, "--prefix", "backlog_"] },
          { command: "turnkit-no-such-mcp-server", args: [] },
        ],
      },
    });
  }, 60_000);
  afterAll(() => root.cleanUp());

  it("the banner lists each server's tools, or why it has none, and the run goes on", () => {
    expect(run.result.exitCode).toBe(0);
    const banner = run.output.split("\n").filter((line) => line.startsWith("mcp ") || line.startsWith("extensions "));
    expect(banner).toEqual([
      "extensions coding-agent-prompt, workspace-tools, explore, issue-tracker, mcp-1, mcp-2, permissions, changed-files-reminder, compaction",
      "mcp issue-tracker: get_issue",
      "mcp mcp-1: backlog_get_issue",
      'mcp mcp-2: MCP server "mcp-2" could not connect: could not start "turnkit-no-such-mcp-server": spawn turnkit-no-such-mcp-server ENOENT',
    ]);
  });

  it("the model is offered the tools of every server that started", () => {
    const model = run.result.model as import("../src/scripted-session.js").ScriptedModelChoice;
    const offered = model.scriptedModel.requests[0]!.context.tools!.map((tool) => tool.name);
    expect(offered).toEqual(expect.arrayContaining(["get_issue", "backlog_get_issue", "read", "bash"]));
  });
});
