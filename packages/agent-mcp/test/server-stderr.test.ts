import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { connectFailure } from "./support/connect-failure.js";

/** A server that logs in colour, one UTF-8 character split between two writes, and exits before speaking MCP. */
const COLOURED_CRASH = `
const line = Buffer.from("\\u001b[31mFehler:\\u001b[0m Größe überschritten \\u2713\\n");
process.stderr.write(Buffer.from("\\u001b[2mstarting\\u001b[0m\\n"));
process.stderr.write(line.subarray(0, 20));
setTimeout(() => { process.stderr.write(line.subarray(20)); setTimeout(() => process.exit(1), 20); }, 20);
`;

describe("what a stdio server writes to stderr", () => {
  it("an error names its last stderr line as a person reads it: terminal colours removed, characters split between writes kept whole", async () => {
    const mcp = createMcpExtension({
      id: "coloured",
      server: { command: process.execPath, args: ["-e", COLOURED_CRASH] },
      restart: { maxRestarts: 0 },
    });

    const error = await connectFailure(mcp);

    expect(error).toMatchObject({
      code: "connect_failed",
      message: 'MCP server "coloured" could not connect: exited (its last stderr line: Fehler: Größe überschritten ✓)',
    });
    expect(mcp.status.stderrTail).toBe(
      "\u001b[2mstarting\u001b[0m\n\u001b[31mFehler:\u001b[0m Größe überschritten ✓\n",
    );
    await mcp.dispose();
  });
});
