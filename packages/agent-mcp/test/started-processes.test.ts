/*
 * A stdio server started through another program, as hosts' configurations
 * often start one: a shell (`sh -c "cd app && node server.js"`), a package
 * runner (`npx`, `uv run`). The server is that program's child, and a
 * signal sent to the program does not reach it. A server that stays up
 * after its input ended (a Node server with a timer or an open socket: the
 * MCP SDK's stdio transport does not exit on end-of-input) outlived the
 * runtime's dispose.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it, onTestFinished } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { isRunning } from "../src/process-tree.js";
import { handWrittenServer } from "./fixtures/hand-written-server.js";
import { waitUntil } from "./fixtures/stdio-fixture.js";

/** A server that answers `pid` with its process id and keeps running after its input ended; `stubborn`: it ignores SIGTERM too. */
function lingeringServer(stubborn: boolean): string {
  return handWrittenServer({
    name: "lingering",
    tool: "pid",
    setup: `setInterval(() => {}, 1_000); ${stubborn ? `process.on("SIGTERM", () => {});` : ""}`,
    onCall: `send({ id: request.id, result: { content: [{ type: "text", text: String(process.pid) } ] } });`,
  });
}

describe("a stdio server started through a shell", { timeout: 15_000 }, () => {
  for (const stubborn of [false, true])
    it(`that ${stubborn ? "ignores end-of-input and SIGTERM" : "ignores end-of-input"} is gone once the extension is disposed`, async () => {
      const mcp = createMcpExtension({
        id: "lingering",
        // Not the shell's last command, so the shell runs it as its child and waits for it.
        server: {
          command: "sh",
          args: ["-c", `"$0" -e "$1"; echo "server ended" >&2`, process.execPath, lingeringServer(stubborn)],
        },
        shutdownGraceMs: 100,
      });
      await mcp.connect();
      const answer = await mcp.client!.callTool({ name: "pid", arguments: {} });
      const serverPid = Number((answer.content as { text: string }[])[0]!.text);
      expect(isRunning(serverPid)).toBe(true);
      onTestFinished(() => {
        if (isRunning(serverPid)) process.kill(serverPid, "SIGKILL");
      });

      const started = Date.now();
      await mcp.dispose();

      expect(isRunning(serverPid)).toBe(false);
      // The server's steps: end-of-input, SIGTERM a grace later, SIGKILL a grace after that.
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(mcp.status.state).toBe("disposed");
    });
});

/**
 * A server that writes its process id to stderr at its start, answers
 * `pid`, and keeps running after its input ended and after SIGTERM.
 */
const orphanableServer = handWrittenServer({
  name: "orphanable",
  tool: "pid",
  setup: `setInterval(() => {}, 1_000); process.on("SIGTERM", () => {}); process.stderr.write("pid " + process.pid + "\\n");`,
  onCall: `send({ id: request.id, result: { content: [{ type: "text", text: String(process.pid) }] } });`,
});

/** The process id the server wrote to its stderr, once it did. */
function serverPid(mcp: ReturnType<typeof createMcpExtension>): Promise<number> {
  return waitUntil(() => {
    const pid = /pid (\d+)/.exec(mcp.status.stderrTail ?? "")?.[1];
    return pid === undefined ? undefined : Number(pid);
  });
}

function orphanable(script: string, connectTimeoutMs?: number) {
  const mcp = createMcpExtension({
    id: "orphanable",
    server: { command: "sh", args: ["-c", script, process.execPath, orphanableServer] },
    shutdownGraceMs: 100,
    ...(connectTimeoutMs !== undefined && { connectTimeoutMs }),
  });
  onTestFinished(() => mcp.dispose());
  return mcp;
}

/** Stops the server when the test ends, should the extension have left it running. */
function killAtEnd(pid: number): void {
  onTestFinished(() => {
    if (isRunning(pid)) process.kill(pid, "SIGKILL");
  });
}

// The shell starts the server in the background (its input given on, as a background job gets /dev/null) and exits.
const BACKGROUND = `exec 3<&0; "$0" -e "$1" <&3 3<&- &`;

describe("a stdio server started by a wrapper that exits at once, leaving it running", { timeout: 15_000 }, () => {
  it("fails its connect as exited within a second, not at connectTimeoutMs", async () => {
    // Node ends the host's side of the process's stdin at its exit, so the server can never be written to.
    const mcp = orphanable(BACKGROUND);
    const started = Date.now();
    const connecting = mcp.connect();
    killAtEnd(await serverPid(mcp));
    // Seen exiting after the handshake (`server_exited`), or, on a loaded machine, while it was still unanswered
    // (`connect_failed`, "could not connect: exited").
    await expect(connecting).rejects.toMatchObject({
      message: expect.stringMatching(/^MCP server "orphanable" (could not connect: )?exited/),
    });
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
describe.runIf(process.platform === "linux")(
  "a stdio server whose wrapper is gone before dispose",
  { timeout: 15_000 },
  () => {
    const wrappers = {
      // The shell waits for the server, and is killed while it does.
      "was killed": `"$0" -e "$1"; echo "server ended" >&2`,
      "exited at once, leaving the server running": BACKGROUND,
      // The server is started by a subshell that exits at once (a daemon's double fork); the shell lives on.
      "lives, but the server is no longer its child": `exec 3<&0; ( "$0" -e "$1" <&3 3<&- & ); exec sleep 30`,
    };
    for (const [what, script] of Object.entries(wrappers))
      it(`(the wrapper ${what}) is gone once the extension is disposed`, async () => {
        const mcp = orphanable(script, 3_000);
        const connecting = mcp.connect().catch(() => {});
        const pid = await serverPid(mcp);
        killAtEnd(pid);
        await connecting;
        if (what === "was killed") {
          expect(mcp.status.state).toBe("ready");
          process.kill(Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[1]), "SIGKILL");
        }
        if (what === "exited at once, leaving the server running") {
          // The server can never be written to, so the connect failed, and the failed connection's close stops the
          // server without a dispose (how soon it does is the machine's: it may be gone already).
          expect(mcp.status.state).not.toBe("ready");
          await waitUntil(() => (isRunning(pid) ? undefined : true));
        } else {
          expect(isRunning(pid)).toBe(true);
        }

        await mcp.dispose();

        expect(isRunning(pid)).toBe(false);
        expect(mcp.status.state).toBe("disposed");
      });
  },
);
