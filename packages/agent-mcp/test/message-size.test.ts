/*
 * maxMessageBytes bounds what the host reads of one message from a server,
 * whatever its transport: a result of hundreds of megabytes is not read
 * into memory. The server here is the one written apart from this
 * repository (`McpServer`), over stdio and Streamable HTTP.
 */
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { type McpToolDetails, createMcpExtension } from "../src/index.js";
import { type ApartHttpMode, startApartHttpServer } from "./fixtures/apart-server.js";
import { APART_STDIO_BUNDLE } from "./fixtures/stdio-fixture.js";
import { runMcpTurn, runtimeOf } from "./support/run-mcp-turn.js";

describe("a message longer than maxMessageBytes", () => {
  for (const transport of ["stdio", "stateful", "stateless", "stateless-json"] as const) {
    it(`over ${transport}: is not read; the call fails with message_too_large naming the limit, and the next turn works`, async () => {
      const mcp = createMcpExtension({
        id: "apart",
        server: await apartServer(transport),
        maxMessageBytes: 20_000,
      });
      const runtime = await runtimeOf(mcp);

      const first = await runMcpTurn({
        runtime,
        script: [
          response([
            // Fifty progress notifications of 1,000 characters: far more than the limit in all, each one far less.
            toolCall("long_text", { size: 1_000, progress: 50 }),
          ]),
          // Over stdio the limit allows one pipe chunk (64 KiB) more.
          response([toolCall("long_text", { size: 100_000 })]),
          "Done.",
        ],
      });
      const [small, large] = first.toolResults;
      expect(first.outcome).toEqual({ kind: "completed" });
      expect(small).toMatchObject({ isError: false, text: "x".repeat(1_000) });
      const tooLarge =
        'MCP server "apart" sent a message longer than maxMessageBytes (20000 bytes); it was not read, and the connection was closed';
      expect(large).toMatchObject({ isError: true, text: tooLarge });
      expect((large!.details as McpToolDetails).error).toBe("message_too_large");
      expect(mcp.status.lastError).toMatchObject({ code: "message_too_large", message: tooLarge });

      const next = await runMcpTurn({
        runtime,
        turnId: "t2",
        script: [response([toolCall("long_text", { size: 10 })]), "Done."],
      });
      expect(next.toolResults).toMatchObject([{ isError: false, text: "x".repeat(10) }]);
    });
  }
});

/** The apart server's `server` option over `transport`. */
async function apartServer(transport: "stdio" | ApartHttpMode) {
  if (transport === "stdio") return { command: process.execPath, args: [APART_STDIO_BUNDLE] };
  const http = await startApartHttpServer(transport);
  onTestFinished(() => http.close());
  return { url: http.url };
}
