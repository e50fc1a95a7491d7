import { EventEmitter } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyInput } from "../src/interactive-session.js";
import { stripAnsi } from "../src/ansi-style.js";
import { keyAction, type Keypress } from "../src/key-bindings.js";
import { createTempRoot, startScripted, toolCallEventIndex } from "./support/scripted-run.js";
import { replayTerminal } from "./support/terminal-replay.js";

/** Keys typed by the test instead of a terminal. */
class FakeKeys extends EventEmitter implements KeyInput {
  rawMode = false;
  setRawMode(mode: boolean) {
    this.rawMode = mode;
  }
  resume() {}
  pause() {}
  press(text: string | undefined, key: Keypress) {
    this.emit("keypress", text, key);
  }
  typeText(text: string) {
    for (const char of text) this.press(char, { name: char, sequence: char });
  }
}

async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("the key bindings", () => {
  it("map keypresses as readline reports them", () => {
    expect(keyAction("\r", { name: "return", sequence: "\r" })).toEqual({ type: "submit" });
    expect(keyAction(undefined, { name: "return", meta: true, sequence: "\x1b\r" })).toEqual({ type: "queue" });
    expect(keyAction(undefined, { name: "escape", meta: true, sequence: "\x1b" })).toEqual({ type: "escape" });
    expect(keyAction("\x03", { name: "c", ctrl: true })).toEqual({ type: "interrupt" });
    expect(keyAction("\x04", { name: "d", ctrl: true })).toEqual({ type: "eof" });
    expect(keyAction("é", { sequence: "é" })).toEqual({ type: "insert", text: "é" });
    expect(keyAction("\t", { name: "tab" })).toEqual({ type: "ignore" });
  });
});

describe("the interactive session (keys typed by the test)", () => {
  let root: Awaited<ReturnType<typeof createTempRoot>>;
  beforeAll(async () => {
    root = await createTempRoot();
  });
  afterAll(() => root.cleanUp());

  it("Alt+Enter queues a follow-up that runs as the next turn; y answers the permission question; Ctrl+D exits", {
    timeout: 60_000,
  }, async () => {
    const keys = new FakeKeys();
    const run = startScripted(root.dir, { keys, tty: true, scripted: { eventDelayMs: 2, retryAfterMs: 20 } });
    const shows = (text: string) => () => stripAnsi(run.output()).includes(text);

    // The demo's MCP server asks the user (an elicitation) at the prompt; y shares the issue's private note.
    await until(
      shows("issue-tracker asks: Issue #12 has a private note from its reporter. Share it with the agent? [y/n]"),
      "the server's question",
    );
    keys.typeText("y");
    await until(shows("✓ grep"), "the grep");
    keys.typeText("what changed?");
    keys.press(undefined, { name: "return", meta: true, sequence: "\x1b\r" });
    await until(shows("› (queued) what changed?"), "the follow-up echo");

    await until(shows("? action required: allow bash `node --test`? [y/n]"), "the permission question");
    keys.typeText("y");
    await until(shows("✓ bash node --test · exit 0"), "the test run");

    // The follow-up runs as a turn of its own once the first one completed.
    await until(shows("(Scripted model: its demo script is over.)"), "the follow-up's answer");
    await until(() => (stripAnsi(run.output()).match(/── \d+ steps?/g) ?? []).length === 2, "the second summary");
    const output = replayTerminal(run.output(), 1000);
    expect(output.indexOf("\n› what changed?\n")).toBeGreaterThan(output.indexOf("Both tests pass"));

    keys.press("\x04", { name: "d", ctrl: true });
    const { result, events } = await run.done;
    expect(result.exitCode).toBe(0);
    // The y typed at the server's question reached the server: it shared the private note.
    const issue = events[toolCallEventIndex(events, "get_issue", "finished")];
    expect(JSON.stringify(issue)).toContain("Private note: ");
    expect(result.reports.map((report) => [report.turnId, report.outcome.kind])).toEqual([
      ["turn-1", "completed"],
      ["turn-2", "completed"],
    ]);
    expect(keys.rawMode).toBe(false);
  });

  it("/queue while running queues too; Ctrl+C aborts and drops what was queued; a second Ctrl+C exits", {
    timeout: 60_000,
  }, async () => {
    const keys = new FakeKeys();
    const run = startScripted(root.dir, { keys, tty: true, scripted: { eventDelayMs: 2, retryAfterMs: 20 } });
    const shows = (text: string) => () => stripAnsi(run.output()).includes(text);

    await until(shows("Share it with the agent? [y/n]"), "the server's question");
    keys.typeText("n");
    await until(shows("✓ read test/slugify.test.js"), "the reads");
    keys.typeText("/queue then add a changelog entry");
    keys.press("\r", { name: "return", sequence: "\r" });
    await until(shows("› (queued) then add a changelog entry"), "the follow-up echo");

    await until(shows("? action required: allow bash"), "the permission question");
    keys.press("\x03", { name: "c", ctrl: true });
    await until(shows("■ aborted"), "the abort");
    await until(shows("(dropped 1 queued message)"), "the dropped follow-up");
    keys.press("\x03", { name: "c", ctrl: true });
    const { result, events } = await run.done;
    expect(result.exitCode).toBe(0);
    // The n typed at the server's question reached the server: the issue came without its private note.
    const issue = events[toolCallEventIndex(events, "get_issue", "finished")];
    expect(JSON.stringify(issue)).toContain("Slugs keep punctuation");
    expect(JSON.stringify(issue)).not.toContain("Private note: ");
    const screen = replayTerminal(run.output(), 1000);
    expect(screen).toContain("Share it with the agent? [y/n] n\n");
    expect(screen).toContain("? action required: allow bash `node --test`? [y/n] n\n");
    expect(screen).not.toContain("› then add a changelog entry");
  });

  it("Ctrl+C twice during a run exits once the aborted turn has settled", { timeout: 60_000 }, async () => {
    const keys = new FakeKeys();
    const run = startScripted(root.dir, { keys, tty: true, scripted: { eventDelayMs: 2, retryAfterMs: 20 } });
    await until(() => stripAnsi(run.output()).includes("? action required"), "the permission question");
    keys.press("\x03", { name: "c", ctrl: true });
    keys.press("\x03", { name: "c", ctrl: true });
    const { result } = await run.done;
    expect(result.exitCode).toBe(0);
    expect(result.reports.map((report) => report.outcome.kind)).toEqual(["aborted"]);
    const screen = replayTerminal(run.output(), 1000);
    expect(screen.indexOf("■ aborted")).toBeGreaterThan(0);
    expect(screen.indexOf("session saved")).toBeGreaterThan(screen.indexOf("■ aborted"));
  });
});
