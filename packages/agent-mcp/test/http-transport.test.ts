import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { McpServerError, createMcpExtension } from "../src/index.js";
import { ECHO_INPUT_SCHEMA } from "./fixtures/fixture-server.js";
import { startHttpFixture } from "./fixtures/http-fixture.js";
import { waitUntil } from "./fixtures/stdio-fixture.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

describe("a Streamable HTTP MCP server as a tool extension", () => {
  it("sends the host's headers with every request, runs a full turn, and ends the session on dispose", async () => {
    const fixture = await startHttpFixture({ bearerToken: "s3cret" });
    const mcp = createMcpExtension({
      id: "remote",
      server: { url: fixture.url, headers: { Authorization: "Bearer s3cret" } },
    });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({
      runtime,
      script: [response([toolCall("echo", { text: "over http" }), toolCall("add", { a: 1, b: 1 })]), "Done."],
    });

    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.model.requests[0]!.context.tools![0]).toMatchObject({ name: "echo" });
    expect(turn.model.requests[0]!.context.tools![0]!.parameters).toEqual(ECHO_INPUT_SCHEMA);
    expect(turn.toolResults.map(({ toolName, isError, text }) => ({ toolName, isError, text }))).toEqual([
      { toolName: "echo", isError: false, text: "echo: over http" },
      { toolName: "add", isError: false, text: "2" },
    ]);
    expect(turn.toolResults[1]!.details).toEqual({ server: "remote", tool: "add", structuredContent: { sum: 2 } });
    expect(mcp.status).toMatchObject({ transport: "http", state: "ready", stderrTail: "" });
    const requests = fixture.log.filter((entry) => entry.event === "headers");
    expect(requests.length).toBeGreaterThan(2);
    expect(requests.every((entry) => entry.authorization === "Bearer s3cret")).toBe(true);
    expect(fixture.sessions.size).toBe(1);

    await runtime.dispose();
    expect(fixture.sessions.size).toBe(0); // the client deleted its session
    expect(mcp.status.state).toBe("disposed");
  });

  it("a server that refuses the credentials fails to connect: the turn runs without its tools and the status says why", async () => {
    const fixture = await startHttpFixture({ bearerToken: "s3cret" });
    const mcp = createMcpExtension({ id: "remote", server: { url: fixture.url }, restart: { maxRestarts: 0 } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({ runtime, script: ["I have no tools."] });

    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.model.requests[0]!.context.tools ?? []).toEqual([]);
    expect(mcp.status.state).toBe("gave_up");
    expect(McpServerError.isInstance(mcp.status.lastError)).toBe(true);
    expect(mcp.status.lastError).toMatchObject({ code: "connect_failed", serverId: "remote" });
    expect(mcp.status.lastError!.message).toBe(
      'MCP server "remote" could not connect: could not be reached for initialize (HTTP 401): Error POSTing to endpoint: missing or wrong bearer token',
    );
    await runtime.dispose();
  });

  it("a server that refuses the connection is reported as not reachable, with the socket's error, not as exited", async () => {
    const closed = await startHttpFixture();
    await closed.close(); // nothing listens on its port any more
    const mcp = createMcpExtension({ id: "remote", server: { url: closed.url }, restart: { maxRestarts: 0 } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({ runtime, script: ["No tools."] });

    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(mcp.status.lastError!.message).toMatch(
      /^MCP server "remote" could not connect: could not be reached for initialize: fetch failed \(.*ECONNREFUSED.*\)$/,
    );
    expect(mcp.status).toMatchObject({ state: "gave_up", lastError: { code: "connect_failed" } });
    await runtime.dispose();
  });

  it("a server that goes away mid-call: the call is answered at once with an error naming the server, and the next turn opens a new session", async () => {
    const gone = await startHttpFixture();
    const port = Number(new URL(gone.url).port);
    const mcp = createMcpExtension({ id: "remote", server: { url: gone.url }, callTimeoutMs: 20_000 });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const startedAt = Date.now();
    const turn = runMcpTurn({ runtime, script: [response([toolCall("wait_for_cancel", {})]), "It went away."] });
    await waitUntil(() => gone.log.find((entry) => entry.event === "begin"));
    await gone.close();
    const { outcome, toolResults } = await turn;

    expect(outcome).toEqual({ kind: "completed" });
    expect(Date.now() - startedAt).toBeLessThan(10_000); // not the 20 s call timeout
    expect(toolResults[0]!.isError).toBe(true);
    // A server that shuts down ends the call's event stream cleanly (then a ping tells it went) or breaks it.
    expect(toolResults[0]!.text).toMatch(
      /^MCP server "remote" lost its connection \((its event stream ended without answering tools\/call "wait_for_cancel", and it then could not be reached for ping: .+|(SSE stream disconnected|Failed to reconnect SSE stream): .+)\)$/,
    );
    expect(mcp.status).toMatchObject({ state: "failed", lastError: { code: "transport_error" } });

    await startHttpFixture({ port }); // the server comes back on the same port
    const next = await runMcpTurn({
      runtime,
      turnId: "t2",
      script: [response([toolCall("echo", { text: "back" })]), "Done."],
    });
    expect(next.toolResults[0]).toMatchObject({ text: "echo: back", isError: false });
    expect(mcp.status).toMatchObject({ state: "ready", restarts: 1 });
    await runtime.dispose();
  });
});
