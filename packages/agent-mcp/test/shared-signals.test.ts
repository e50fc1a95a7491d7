import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { startHttpFixture } from "./fixtures/http-fixture.js";
import { startStatelessServer } from "./fixtures/stateless-server.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

/*
 * A turn's parallel calls share the turn's signal, and every call of the
 * extension follows its dispose signal: twelve calls in flight at once must
 * not add twelve listeners to either (Node warns of a leak past ten).
 */
describe("many MCP calls in flight on one signal", { timeout: 15_000 }, () => {
  it("twelve parallel calls of one turn, on the host's signal, print no MaxListenersExceededWarning and all answer", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    const fixture = await startHttpFixture();
    const runtime = await createAgentRuntime({
      base: [createMcpExtension({ id: "files", server: { url: fixture.url } })],
    });
    try {
      const calls = Array.from({ length: 12 }, (_, index) => toolCall("sleep", { ms: 50 }, { id: `c${index}` }));
      const { outcome, toolResults } = await runMcpTurn({
        runtime,
        script: [response(calls), "Done."],
        signal: new AbortController().signal,
      });
      expect(outcome).toEqual({ kind: "completed" });
      expect(toolResults).toHaveLength(12);
      expect(toolResults.filter((result) => result.isError)).toEqual([]);
      // Node reports the warning on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((warning) => warning.message)).toEqual([]);
    } finally {
      process.off("warning", onWarning);
      await runtime.dispose();
      await fixture.close();
    }
  });

  it("twelve parallel calls to a stateless server (each request follows the transport's signal) print no warning and all answer", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    const stateless = await startStatelessServer();
    const runtime = await createAgentRuntime({
      base: [createMcpExtension({ id: "stateless", server: { url: stateless.url } })],
    });
    try {
      const calls = Array.from({ length: 12 }, (_, index) => toolCall("pause", { ms: 50 }, { id: `c${index}` }));
      const { outcome, toolResults } = await runMcpTurn({ runtime, script: [response(calls), "Done."] });
      expect(outcome).toEqual({ kind: "completed" });
      expect(toolResults.map((result) => [result.isError, result.text])).toEqual(
        calls.map(() => [false, "paused 50 ms"]),
      );
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.map((warning) => warning.message)).toEqual([]);
    } finally {
      process.off("warning", onWarning);
      await runtime.dispose();
    }
  });
});
