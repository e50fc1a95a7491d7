import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stripAnsi } from "../src/ansi-style.js";
import { SCRIPTED_RETRY_AFTER_MS } from "../src/defaults.js";
import { createTempRoot, normaliseOutput, runScripted, type ScriptedRun } from "./support/scripted-run.js";

describe("the scripted session without a terminal", () => {
  let root: Awaited<ReturnType<typeof createTempRoot>>;
  let run: ScriptedRun;
  /** When each `llm.retry` trace arrived (`waiting`, then `recovered`). */
  const retryTimes: [string, number][] = [];

  beforeAll(async () => {
    root = await createTempRoot();
    // The demo's own 2.1 s rate-limit wait, so the transcript is exactly what `pnpm start | cat` prints.
    run = await runScripted(root.dir, {
      scripted: { eventDelayMs: 0, retryAfterMs: SCRIPTED_RETRY_AFTER_MS },
      onEvent: (event) => {
        if (event.type === "debug.trace" && event.payload.phase === "llm.retry")
          retryTimes.push([event.payload.message, performance.now()]);
      },
    });
  }, 60_000);
  afterAll(() => root.cleanUp());

  it("prints a transcript that reads without colours (snapshot)", async () => {
    expect(run.result.exitCode).toBe(0);
    expect(run.output).toBe(stripAnsi(run.output));
    await expect(normaliseOutput(run.output, run.result)).toMatchFileSnapshot("__snapshots__/scripted-session.txt");
  });

  it("fixes the sample project in its copy: the edit, not a rewrite, because the user steered", async () => {
    const fixed = await readFile(path.join(run.result.workspaceDir, "src/slugify.js"), "utf8");
    expect(fixed).toContain(`.replace(/[^a-z0-9]+/g, "-")`);
    expect(fixed).toContain("Turns a title into a URL slug");
    const toolNames = (sub: boolean) =>
      run.events.flatMap((event) =>
        event.type === "stream.resp" &&
        (event.origin !== undefined) === sub &&
        event.payload.chunk.kind === "tool_call" &&
        event.payload.chunk.status === "finished"
          ? [event.payload.chunk.toolName]
          : [],
      );
    expect(toolNames(false)).toEqual(["get_issue", "read", "read", "explore", "edit", "bash"]);
    // The explore sub-agent's own call, its events marked with the explore call it came from.
    expect(toolNames(true)).toEqual(["grep"]);
  });

  it("handed the search to the explore sub-agent: its answer is the call's result, its cost its own and in the turn's", () => {
    const explore = run.events.flatMap((event) =>
      event.type === "stream.resp" &&
      !event.origin &&
      event.payload.chunk.kind === "tool_call" &&
      event.payload.chunk.toolName === "explore" &&
      event.payload.chunk.status === "finished"
        ? [event.payload.chunk]
        : [],
    )[0]!;
    expect(explore.result?.content[0]).toMatchObject({ text: expect.stringContaining("`postPath` in src/post.js") });
    const marked = run.events.filter((event) => event.origin);
    expect(new Set(marked.map((event) => event.origin!.toolCallId))).toEqual(new Set([explore.toolCallId]));
    const terminal = run.events.at(-1)!;
    const report = terminal.type === "session.status" ? terminal.payload : undefined;
    expect(report?.subAgentCalls).toEqual([
      expect.objectContaining({ agent: "explore", outcome: "completed", toolCallId: explore.toolCallId }),
    ]);
    expect(report?.usage?.subAgents).toMatchObject({ input: 1_416, output: 61 });
  });

  it("looked the bug report up on the demo's MCP server (a child process speaking MCP over stdio)", () => {
    const issue = run.events.find(
      (event) =>
        event.type === "stream.resp" &&
        event.payload.chunk.kind === "tool_call" &&
        event.payload.chunk.toolName === "get_issue" &&
        event.payload.chunk.status === "finished",
    );
    const chunk =
      issue?.type === "stream.resp" && issue.payload.chunk.kind === "tool_call" ? issue.payload.chunk : undefined;
    expect(chunk?.result?.isError).toBe(false);
    expect(chunk?.result?.content[0]).toMatchObject({
      type: "text",
      text: expect.stringMatching(/^#12 Slugs keep punctuation \(open\)\n/),
    });
    expect(chunk?.result?.details).toMatchObject({
      server: "issue-tracker",
      tool: "get_issue",
      structuredContent: { number: 12, state: "open" },
    });
    // The server asked the user (MCP elicitation, an action.required of the turn); the scripted user said yes.
    const asked = run.events.flatMap((event) => (event.type === "action.required" ? [event.payload] : []));
    expect(asked).toMatchObject([
      {
        kind: "elicitation",
        serverName: "issue-tracker",
        toolCallId: chunk?.toolCallId,
        message: "Issue #12 has a private note from its reporter. Share it with the agent?",
        requestedSchema: { properties: { share: { type: "boolean" } } },
      },
    ]);
    expect(chunk?.result?.content[0]).toMatchObject({ text: expect.stringContaining("Private note: ") });
  });

  it("delivers the steering at a mid-turn boundary, and the next request carries it", () => {
    const steering = run.events.find((event) => event.type === "debug.trace" && event.payload.phase === "steering");
    expect(steering?.type === "debug.trace" && steering.payload.attrs).toMatchObject({
      boundary: "mid-turn",
      count: 1,
    });
    const model = run.result.model as import("../src/scripted-session.js").ScriptedModelChoice;
    const fixRequest = model.scriptedModel.requests[3]!;
    const lastUser = fixRequest.context.messages.filter((message) => message.role === "user").at(-1);
    expect(JSON.stringify(lastUser)).toContain("Keep the change small");
  });

  it("compacted the history once, before the report, with the scripted summariser; the report still saw the test run", () => {
    const replaced = run.events.flatMap((event) =>
      event.type === "message.persisted" && event.payload.reason === "replaceMessages" ? [event.payload.messages] : [],
    );
    expect(replaced).toHaveLength(1);
    const [record, summary, ...kept] = replaced[0]! as unknown as Array<Record<string, unknown>>;
    expect(record).toMatchObject({
      role: "host",
      kind: "compaction",
      data: { reason: "threshold", summaryModel: "scripted/scripted-summariser", splitTurn: true },
    });
    expect(summary).toMatchObject({ role: "hidden", source: "compaction" });
    expect(JSON.stringify(summary)).toContain("tools used: get_issue ×1, read ×2, explore ×1");
    // Every kept tool result kept its call: the cut fell between steps of the one long turn.
    const calls = new Set(kept.flatMap((message) => (message.role === "assistant" ? toolCallIds(message) : [])));
    for (const message of kept)
      if (message.role === "toolResult") expect(calls.has(message.toolCallId as string)).toBe(true);

    const model = run.result.model as import("../src/scripted-session.js").ScriptedModelChoice;
    expect(model.summariser.scriptedModel.requests).toHaveLength(1);
    const reportRequest = model.scriptedModel.requests.at(-1)!;
    expect(reportRequest.context.messages[0]).toMatchObject({ role: "user" });
    expect(JSON.stringify(reportRequest.context.messages[0])).toContain("compacted into this summary");
    expect(reportRequest.context.messages.at(-1)).toMatchObject({ role: "toolResult", toolName: "bash" });
    // The summary's tokens are the turn's auxiliary usage.
    const terminal = run.events.at(-1)!;
    expect(terminal.type === "session.status" && terminal.payload.usage?.attempts.auxiliary).toBe(1);
  });

  it("fell back to the backup model once, for the report, when the first model's quota ran out", () => {
    const warnings = run.events.flatMap((event) =>
      event.type === "runtime.warning" && event.payload.code === "model_fallback" ? [event.payload] : [],
    );
    expect(warnings).toEqual([
      expect.objectContaining({
        from: "scripted/scripted-model",
        to: "scripted/scripted-model-backup",
        trigger: "quota",
        error: expect.objectContaining({ code: "quota" }),
      }),
    ]);
    const terminal = run.events.at(-1)!;
    const requests = terminal.type === "session.status" ? (terminal.payload.timing?.requests ?? []) : [];
    expect(requests.filter((request) => request.models !== undefined)).toEqual([
      expect.objectContaining({ attempts: 2, models: ["scripted/scripted-model", "scripted/scripted-model-backup"] }),
    ]);
  });

  it("retried the rate-limited request once and ended with one completed turn", () => {
    const retries = run.events.flatMap((event) =>
      event.type === "debug.trace" && event.payload.phase === "llm.retry" ? [event.payload.message] : [],
    );
    expect(retries).toEqual(["waiting", "recovered"]);
    // The wait the 429 asked for is waited out in real time (the other tests ask for a short one).
    expect(retryTimes.map(([message]) => message)).toEqual(["waiting", "recovered"]);
    expect(retryTimes[1]![1] - retryTimes[0]![1]).toBeGreaterThanOrEqual(SCRIPTED_RETRY_AFTER_MS - 5);
    const statuses = run.events.flatMap((event) =>
      event.type === "session.status" && !event.origin ? [event.payload.status] : [],
    );
    expect(statuses).toEqual(["running", "completed"]);
  });
});

function toolCallIds(message: Record<string, unknown>): string[] {
  return (message.content as Array<{ type: string; id?: string }>).flatMap((block) =>
    block.type === "toolCall" && block.id ? [block.id] : [],
  );
}
