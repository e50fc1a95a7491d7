import { readFile } from "node:fs/promises";
import path from "node:path";
import type { AgentMessage } from "@turnkit/agent-loop";
import type { RuntimeEvent } from "@turnkit/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostError } from "../src/host-error.js";
import type { ScriptedModelChoice } from "../src/scripted-session.js";
import { SessionStore, type SessionRecord } from "../src/session-store.js";
import { createTempRoot, runScripted, type ScriptedRun } from "./support/scripted-run.js";

async function records(file: string): Promise<SessionRecord[]> {
  return (await readFile(file, "utf8"))
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as SessionRecord);
}

/** The history a host holds after these events: every `message.persisted`, applied in order. */
function persistedHistory(events: readonly RuntimeEvent[], start: readonly AgentMessage[] = []): AgentMessage[] {
  let history = [...start];
  for (const event of events) {
    if (event.type !== "message.persisted") continue;
    const messages = event.payload.messages as AgentMessage[];
    history = event.payload.reason === "replaceMessages" ? [...messages] : [...history, ...messages];
  }
  return history;
}

const roles = (messages: readonly AgentMessage[]) => messages.map((message) => message.role);

describe("the JSONL session store", () => {
  let root: Awaited<ReturnType<typeof createTempRoot>>;
  let first: ScriptedRun;

  beforeAll(async () => {
    root = await createTempRoot();
    first = await runScripted(root.dir);
  }, 60_000);
  afterAll(() => root.cleanUp());

  it("persists the scripted session: a header, its one compaction as a rewrite, then one line per later change", async () => {
    const lines = await records(first.result.sessionFile);
    expect(lines[0]).toMatchObject({
      type: "session",
      version: 1,
      workspaceDir: first.result.workspaceDir,
      model: "scripted demo model",
    });
    // The demo compacts before its report: the file is rewritten to the replacement, then the report is appended.
    expect(lines.slice(1).map((line) => line.type === "change" && [line.reason, line.turnId])).toEqual([
      ["replaceMessages", "turn-1"],
      ["messageDelta", "turn-1"],
    ]);
    const deltasBefore = first.events.filter(
      (event) => event.type === "message.persisted" && event.payload.reason === "messageDelta",
    );
    expect(deltasBefore.length).toBeGreaterThan(5);

    const stored = (await SessionStore.open(first.result.sessionFile)).messages;
    expect(JSON.parse(JSON.stringify(persistedHistory(first.events)))).toEqual(stored);
    expect(roles(stored)).toEqual([
      "host", // the compaction's record
      "hidden", // its summary of the reminder, the task, the bug report, the reads, the grep and the steering
      "assistant", // edit
      "toolResult",
      "assistant", // bash
      "toolResult",
      "assistant", // the report
    ]);
  });

  it("resumes: the next turn's request carries the stored history, and its messages are appended", async () => {
    const before = (await SessionStore.open(first.result.sessionFile)).messages;
    const resumed = await runScripted(root.dir, { cli: { resume: first.result.sessionFile } });
    expect(resumed.result.exitCode).toBe(0);
    expect(resumed.output).toContain(`resumed ${first.result.sessionFile}: 7 messages from 1 turn`);
    expect(resumed.output).toContain("I made 2 tool calls and changed src/slugify.js");

    const request = (resumed.result.model as ScriptedModelChoice).scriptedModel.requests[0]!;
    // The request holds the stored history as the model sees it (the host-only record left out), then the new reminder and task.
    expect(request.context.messages.length).toBe(before.length - 1 + 2);
    expect(JSON.stringify(request.context.messages)).toContain("Keep the change small");

    const after = (await SessionStore.open(first.result.sessionFile)).messages;
    expect(after.slice(0, before.length)).toEqual(before);
    expect(roles(after.slice(before.length))).toEqual(["hidden", "user", "assistant"]);
    expect(JSON.stringify(after.at(-2))).toContain("Where did we leave off?");
    expect(
      (await records(first.result.sessionFile))
        .filter((line) => line.type === "change")
        .map((line) => (line as { turnId: string }).turnId)
        .at(-1),
    ).toBe("turn-2");
  }, 60_000);

  it("a replaceMessages change (compaction) rewrites the file to the new history, and later deltas append to it", async () => {
    const before = (await SessionStore.open(first.result.sessionFile)).messages;
    const compacted = await runScripted(root.dir, {
      cli: { resume: first.result.sessionFile },
      compaction: { contextWindow: 2_500, reserveTokens: 200, keepRecentTokens: 50 },
    });
    expect(compacted.result.exitCode).toBe(0);

    // The turn's reminder and task are persisted first; the compaction happens before the model request.
    const reasons = compacted.events.flatMap((event) =>
      event.type === "message.persisted" ? [event.payload.reason] : [],
    );
    expect(reasons).toEqual(["messageDelta", "messageDelta", "replaceMessages", "messageDelta"]);

    const lines = await records(first.result.sessionFile);
    expect(lines.map((line) => (line.type === "session" ? "session" : line.reason))).toEqual([
      "session",
      "replaceMessages",
      "messageDelta",
    ]);
    const stored = (await SessionStore.open(first.result.sessionFile)).messages;
    expect(stored).toEqual(JSON.parse(JSON.stringify(persistedHistory(compacted.events))));
    expect(stored.length).toBeLessThan(before.length);
    // A second compaction: the demo's summary is kept verbatim, this one covers what came after it.
    const previous = before[0] as { data: { summaries: string[] } };
    expect(stored[0]).toMatchObject({ role: "host", kind: "compaction", data: { reason: "threshold" } });
    const summaries = (stored[0] as { data: { summaries: string[] } }).data.summaries;
    expect(summaries).toEqual([previous.data.summaries[0], expect.stringContaining("files changed: src/slugify.js")]);
    expect(stored[1]).toMatchObject({ role: "hidden", source: "compaction" });
    expect(JSON.stringify(stored[1])).toContain("compacted into these summaries, oldest first");
    // No tool result lost its call.
    const calls = new Set(
      stored.flatMap((message) =>
        message.role === "assistant"
          ? message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []))
          : [],
      ),
    );
    for (const message of stored) if (message.role === "toolResult") expect(calls.has(message.toolCallId)).toBe(true);
    // Cut inside the last turn: the previous recap is kept, then this turn's reminder, task and answer.
    expect(roles(stored)).toEqual(["host", "hidden", "assistant", "hidden", "user", "assistant"]);
  }, 60_000);

  it("refuses a session file that is not one, naming it", async () => {
    const bogus = path.join(root.dir, "not-a-session.jsonl");
    await import("node:fs/promises").then((fs) => fs.writeFile(bogus, '{"hello":"world"}\n'));
    const error = await SessionStore.open(bogus).catch((caught: unknown) => caught);
    expect(HostError.isInstance(error) && error.code).toBe("session_file");
    expect((error as Error).message).toContain(bogus);
  });
});
