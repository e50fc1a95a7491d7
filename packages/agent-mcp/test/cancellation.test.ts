import { ToolResultText } from "@turnkit/agent-loop/internal";
import { hang, response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import type { FixtureLogEntry } from "./fixtures/fixture-server.js";
import { startHttpFixture } from "./fixtures/http-fixture.js";
import { startStatelessServer } from "./fixtures/stateless-server.js";
import { stdioFixture, waitUntil } from "./fixtures/stdio-fixture.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

/**
 * A turn on `runtime` whose model calls `wait_for_cancel`, aborted once the
 * server logged the call's `begin` (found with `begun`); resolves what the
 * turn ended with, and that `begin` entry.
 */
async function abortedDuringCall<T>(
  runtime: Awaited<ReturnType<typeof createAgentRuntime>>,
  begun: () => T | undefined,
) {
  const abort = new AbortController();
  const turn = runMcpTurn({
    runtime,
    signal: abort.signal,
    script: [response([toolCall("wait_for_cancel", {})]), "never sent"],
  });
  const begin = await waitUntil(begun);
  abort.abort();
  return { ...(await turn), begin };
}

/** The next turn on `runtime` calls the server's `echo` over the same connection: no restart after an aborted call. */
async function expectStillServing(
  runtime: Awaited<ReturnType<typeof createAgentRuntime>>,
  mcp: ReturnType<typeof createMcpExtension>,
): Promise<void> {
  const next = await runMcpTurn({
    runtime,
    turnId: "t2",
    script: [response([toolCall("echo", { text: "still here" })]), "Done."],
  });
  expect(next.toolResults[0]).toMatchObject({ text: "echo: still here", isError: false });
  expect(mcp.status).toMatchObject({ state: "ready", restarts: 0 });
}

describe("aborting a turn cancels the MCP call on the server", () => {
  for (const transport of ["stdio", "http"] as const) {
    it(`over ${transport}: the server receives notifications/cancelled for the call, and the call gets the loop's result for a call interrupted after it started`, async () => {
      let log: () => FixtureLogEntry[];
      let server;
      if (transport === "http") {
        const http = await startHttpFixture();
        const fixture = http;
        log = () => fixture.log;
        server = { url: fixture.url };
      } else {
        const stdio = stdioFixture();
        log = stdio.log;
        server = stdio.server;
      }
      const mcp = createMcpExtension({ id: "waiter", server });
      const runtime = await createAgentRuntime({ base: [mcp] });
      const {
        outcome,
        toolResults,
        begin: begun,
      } = await abortedDuringCall(runtime, () =>
        log().find((entry) => entry.event === "begin" && entry.tool === "wait_for_cancel"),
      );

      expect(outcome).toEqual({ kind: "aborted" });
      const requestId = begun.event === "begin" ? begun.requestId : undefined;
      const cancelled = await waitUntil(() => log().find((entry) => entry.event === "cancelled"));
      expect(cancelled).toMatchObject({ event: "cancelled", requestId });
      expect(toolResults).toEqual([
        expect.objectContaining({
          toolName: "wait_for_cancel",
          isError: true,
          text: ToolResultText.interrupted, // it ran on the server: never "not executed"
          details: { server: "waiter", tool: "wait_for_cancel", cancelled: true },
        }),
      ]);
      // The server is still fine: the next turn uses the same connection.
      await expectStillServing(runtime, mcp);
      await runtime.dispose();
    });
  }

  for (const mode of ["event stream", "JSON"] as const) {
    it(`a stateless Streamable HTTP server (${mode} responses) sees its tool handler's signal fire: the call's request is closed, since no session can carry notifications/cancelled to it`, async () => {
      const stateless = await startStatelessServer({ jsonResponse: mode === "JSON" });
      const mcp = createMcpExtension({ id: "stateless", server: { url: stateless.url } });
      const runtime = await createAgentRuntime({ base: [mcp] });
      const { outcome, toolResults } = await abortedDuringCall(runtime, () =>
        stateless.log.find((entry) => entry.event === "begin"),
      );

      expect(outcome).toEqual({ kind: "aborted" });
      expect(toolResults[0]).toMatchObject({ text: ToolResultText.interrupted, isError: true });
      await waitUntil(() => stateless.log.find((entry) => entry.event === "aborted"));
      // The connection is not lost over it: the next turn calls the same server.
      await expectStillServing(runtime, mcp);
      await runtime.dispose();
    });
  }

  it("a stateless server that wires its close after `await handleRequest(...)`, as the SDK's stateless example does, never sees the cancellation: it gets notifications/cancelled in a request of its own, for a request it does not know", async () => {
    const stateless = await startStatelessServer({ closeAfterAnswer: true });
    const mcp = createMcpExtension({ id: "stateless", server: { url: stateless.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });
    const { outcome, toolResults } = await abortedDuringCall(runtime, () =>
      stateless.log.find((entry) => entry.event === "begin"),
    );
    await waitUntil(() =>
      stateless.log.find((entry) => entry.event === "notification" && entry.method === "notifications/cancelled"),
    );

    expect(outcome).toEqual({ kind: "aborted" });
    expect(toolResults[0]).toMatchObject({ text: ToolResultText.interrupted, isError: true });
    expect(stateless.log.filter((entry) => entry.event === "aborted")).toEqual([]);
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 0 });
    await runtime.dispose();
  });

  it("only calls in flight are cancelled: a finished call, the handshake and the tool list never get notifications/cancelled later", async () => {
    const http = await startHttpFixture();
    const fixture = http;
    const mcp = createMcpExtension({ id: "quiet", server: { url: fixture.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });
    const abort = new AbortController();

    const turn = runMcpTurn({
      runtime,
      signal: abort.signal,
      script: [response([toolCall("echo", { text: "done" })]), hang()],
    });
    await waitUntil(() => fixture.log.find((entry) => entry.event === "end"));
    await new Promise((resolve) => setTimeout(resolve, 50)); // the model's second request is hanging now
    abort.abort();
    const { outcome, toolResults } = await turn;
    await runtime.dispose();

    expect(outcome).toEqual({ kind: "aborted" });
    expect(toolResults[0]).toMatchObject({ text: "echo: done", isError: false });
    expect(fixture.log.filter((entry) => entry.event === "cancelled")).toEqual([]);
  });
});
