import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SAMPLE_PROJECT_DIR } from "../src/sample-workspace.js";
import { DEMO_USER } from "../src/scripted-session.js";
import { SessionStore } from "../src/session-store.js";
import { createTempRoot, runScripted, toolCallEventIndex } from "./support/scripted-run.js";

const BASH_QUESTION = "? action required: allow bash `node --test`? [y/n]";

describe("the permission extension", () => {
  let root: Awaited<ReturnType<typeof createTempRoot>>;
  beforeAll(async () => {
    root = await createTempRoot();
  });
  afterAll(() => root.cleanUp());

  it("without a terminal, the scripted user answers the prompt and the answer is printed", async () => {
    const { output, events } = await runScripted(root.dir);
    expect(output).toContain(`${BASH_QUESTION} y (answered by the scripted session: no terminal)`);
    const bash = events.flatMap((event) =>
      event.type === "stream.resp" &&
      event.payload.chunk.kind === "tool_call" &&
      event.payload.chunk.toolName === "bash"
        ? [event.payload.chunk.status]
        : [],
    );
    expect(bash).toEqual(["preparing", "started", "finished"]);
  }, 60_000);

  it("a refusal blocks the call with blockedBy permission: the model gets an error result and the turn goes on", async () => {
    const refusingUser = {
      ...DEMO_USER,
      answerPermission: (request: { toolName: string }) => request.toolName !== "bash",
    };
    const { output, events, result } = await runScripted(root.dir, { scriptedUser: refusingUser });
    expect(result.exitCode).toBe(0);
    expect(output).toContain(`${BASH_QUESTION} n (answered by the scripted session: no terminal)`);
    expect(output).toContain("  ✗ bash node --test · refused by the user\n");
    expect(output).toContain("running `node --test` was not allowed");

    const blocked = events.find(
      (event) => event.type === "debug.trace" && event.payload.message === "tool call blocked",
    );
    expect(blocked?.type === "debug.trace" && blocked.payload.attrs).toMatchObject({
      toolName: "bash",
      blockedBy: "permission",
    });
    const final = events.flatMap((event) =>
      event.type === "stream.resp" &&
      event.payload.chunk.kind === "tool_call" &&
      event.payload.chunk.toolName === "bash" &&
      event.payload.chunk.status === "failed"
        ? [event.payload.chunk]
        : [],
    );
    expect(final).toHaveLength(1);
    expect(final[0]!.result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: expect.stringContaining("The user refused permission to run bash") }],
    });

    const history = (await SessionStore.open(result.sessionFile)).messages;
    const bashResult = history.find((message) => message.role === "toolResult" && message.toolName === "bash");
    expect(bashResult).toMatchObject({ isError: true });
  }, 60_000);

  it("--yes switches the extension off: no tool call is asked about and bash runs; a server's question is still asked", async () => {
    const { output, events } = await runScripted(root.dir, { cli: { yes: true } });
    expect(output).toContain("bash and write run without asking (--yes)");
    expect(output).not.toContain("action required: allow");
    // --yes allows tool calls; it does not answer what an MCP server asks the user.
    expect(output).toContain(
      "? action required: issue-tracker asks: Issue #12 has a private note from its reporter. Share it with the agent? [y/n] y (answered by the scripted session: no terminal)",
    );
    const finishedBash = toolCallEventIndex(events, "bash", "finished") >= 0;
    expect(finishedBash).toBe(true);
  }, 60_000);

  it("asks before write too: without steering the demo rewrites the file, and refusing it leaves the file alone", async () => {
    const noSteering = {
      task: DEMO_USER.task,
      answerPermission: (request: { toolName: string }) => request.toolName !== "write",
    };
    const { output, result } = await runScripted(root.dir, { scriptedUser: noSteering });
    const original = await readFile(path.join(SAMPLE_PROJECT_DIR, "src/slugify.js"), "utf8");
    expect(await readFile(path.join(result.workspaceDir, "src/slugify.js"), "utf8")).toBe(original);
    expect(output).toContain("I'll rewrite src/slugify.js");
    expect(output).toContain("? action required: allow write `src/slugify.js (9 lines)`? [y/n] n");
    expect(output).toContain("  ✗ write src/slugify.js (9 lines) · refused by the user\n");
    // The unfixed module fails its test; the report says so.
    expect(output).toContain("  ✗ bash node --test · Command exited with code 1");
    expect(output).toContain("The tests still fail");
  }, 60_000);
});
