/*
 * A stdio server started through another program, as hosts' configurations
 * often start one: a shell (`sh -c "cd app && node server.js"`), a package
 * runner (`npx`, `uv run`). The server is that program's child, and a
 * signal sent to the program does not reach it. A server that stays up
 * after its input ended (a Node server with a timer or an open socket: the
 * MCP SDK's stdio transport does not exit on end-of-input) outlived the
 * runtime's dispose.
 */
import { describe, expect, it, onTestFinished } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { isRunning } from "../src/process-tree.js";
import { handWrittenServer } from "./fixtures/hand-written-server.js";

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
