import { afterEach, describe, expect, it } from "vitest";
import { canUsePty, startPtySession, type PtySession } from "./support/pty-session.js";
import { replayTerminal } from "./support/terminal-replay.js";

const COLUMNS = 160;

describe.skipIf(!canUsePty)("the interactive mode in a pseudo-terminal", () => {
  let session: PtySession | undefined;
  afterEach(() => session?.kill());

  it("Enter during a run steers the agent, Esc aborts the run, Ctrl+C twice exits", { timeout: 120_000 }, async () => {
    // Slow enough to type during the run; the demo plays as soon as it starts. Its rate limit asks for 100 ms,
    // not the demo's 2.1 s (scripted-session.test.ts waits that out).
    session = startPtySession(["--delay-ms", "40", "--retry-after-ms", "100"], { columns: COLUMNS });
    // The demo's MCP server asks the user first (an elicitation, at the prompt); y shares the private note.
    await session.waitFor(
      "issue-tracker asks: Issue #12 has a private note from its reporter. Share it with the agent? [y/n]",
      60_000,
    );
    session.type("y");
    await session.waitFor("✓ get_issue", 60_000);
    await session.waitFor("✓ read test/slugify.test.js");

    // The user steers while the agent works (the demo's own steering then stays quiet).
    session.type("please be careful");
    session.type("\r");
    await session.waitFor("› (steering) please be careful");
    await session.waitFor("↳ steering delivered");
    // The steering changed what the agent does next: it answers it, and edits instead of rewriting.
    await session.waitFor('Understood ("please be careful")');

    // Esc aborts the run, wherever it is (streaming, a tool, the permission question).
    session.type("\x1b");
    await session.waitFor("■ aborted");
    // The summary is printed as the session goes back to idle.
    await session.waitFor("── ");

    session.type("\x03");
    await session.waitFor("press Ctrl+C again");
    session.type("\x03");
    expect(await session.exited).toBe(0);

    const screen = replayTerminal(session.output, COLUMNS);
    const lines = screen.split("\n");
    // Streamed text and tool lines end up once each on the screen, with no input line or spinner left among them.
    expect(lines.filter((line) => line.startsWith("  ✓ read src/slugify.js · 6 lines"))).toHaveLength(1);
    expect(lines.filter((line) => line.startsWith('Understood ("please be careful")'))).toHaveLength(1);
    expect(lines.some((line) => line.includes("steer ›"))).toBe(false);
    expect(lines.some((line) => /^\s+[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] /.test(line))).toBe(false);
    expect(screen).not.toContain("Keep the change small");
    expect(screen.indexOf("session saved: ")).toBeGreaterThan(screen.indexOf("■ aborted"));
  });
});
