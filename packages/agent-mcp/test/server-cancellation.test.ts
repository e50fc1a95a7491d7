/*
 * A server that cancels its own request to the client (`notifications/
 * cancelled`): an elicitation its tool no longer waits for (the SDK
 * server's `elicitInput` timed out, or was aborted), a sampling request
 * it gave up. The SDK's client drops a cancellation whose request id is
 * 0, and the SDK's server numbers its requests of a session from 0: the
 * first question of every session stayed before the person, and the first
 * sampling request kept the turn's model writing, until the call that
 * asked ended.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { hang, response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { handWrittenServer } from "./fixtures/hand-written-server.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";
import { serveSdkSessions } from "./support/sdk-session-server.js";

/** An SDK server with sessions whose `ask` tool asks the person, gives up after 100 ms, and answers 500 ms later. */
async function startGivingUpServer(): Promise<string> {
  const origin = await serveSdkSessions({
    connect: async (transport) => {
      const server = new McpServer({ name: "giving-up", version: "1" });
      server.registerTool("ask", { description: "Asks, then gives up" }, async (extra) => {
        const answer = await server.server
          .elicitInput(
            { message: "Deploy?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } },
            { signal: AbortSignal.timeout(100), relatedRequestId: extra.requestId },
          )
          .then(
            (result) => `answered ${result.action}`,
            () => "gave up asking",
          );
        await new Promise((resolve) => setTimeout(resolve, 500));
        return { content: [{ type: "text", text: answer }] };
      });
      await server.connect(transport);
    },
  });
  return `${origin}/mcp`;
}

describe("a server that cancels its own request", { timeout: 15_000 }, () => {
  it("withdraws the person's question at once, also the session's first (request id 0)", async () => {
    const mcp = createMcpExtension({ id: "deployer", server: { url: await startGivingUpServer() }, elicitation: {} });
    const runtime = await createAgentRuntime({ base: [mcp] });
    for (const turnId of ["t1", "t2"]) {
      const seen: string[] = [];
      const turn = await runMcpTurn({
        runtime,
        turnId,
        script: [response([toolCall("ask", {})]), "Done."],
        answerActionRequest: (_request, signal) => {
          seen.push("asked");
          return new Promise((resolve) =>
            signal.addEventListener("abort", () => {
              seen.push("withdrawn");
              resolve({ action: "cancel" });
            }),
          );
        },
        onEvent: (event) => {
          if (event.type === "message.persisted" && event.payload.messages.some((m) => m.role === "toolResult"))
            seen.push("result");
        },
      });
      expect(turn.toolResults.map((result) => result.text)).toEqual(["gave up asking"]);
      expect(seen).toEqual(["asked", "withdrawn", "result"]);
    }
    await runtime.dispose();
  });

  it("stops the turn's model writing for a sampling request the server cancelled (request id 0)", async () => {
    // Asks the model, cancels 50 ms later, and answers the call once the client answered the request, or after 3 s.
    const server = handWrittenServer({
      name: "sampler",
      tool: "think",
      onCall: `
        send({ id: 0, method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text: "Think." } }], maxTokens: 10 } });
        setTimeout(() => send({ method: "notifications/cancelled", params: { requestId: 0, reason: "no longer needed" } }), 50);
        const answer = (text) => { clearTimeout(late); send({ id: request.id, result: { content: [{ type: "text", text }] } }); };
        const late = setTimeout(() => answer("the model was still writing 3 s later"), 3_000);
        onAnswer = () => answer("the client stopped");`,
      setup: "let onAnswer = () => {};",
      onOther: `if (request.id === 0 && request.method === undefined) onAnswer();`,
    });
    const mcp = createMcpExtension({
      id: "sampler",
      server: { command: process.execPath, args: ["-e", server] },
      sampling: {},
    });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({ runtime, script: [response([toolCall("think", {})]), hang(), "Done."] });

    expect(turn.toolResults.map((result) => result.text)).toEqual(["the client stopped"]);
    expect(turn.outcome).toEqual({ kind: "completed" });
    await runtime.dispose();
  });

  it("does not ask the person at all when the cancellation comes with the request (one write)", async () => {
    // Asks and cancels in one write, and answers the call once the client answered the request, or after 3 s.
    const server = handWrittenServer({
      name: "hasty",
      tool: "ask",
      setup: "let onAnswer = () => {};",
      onCall: `
        const ask = { jsonrpc: "2.0", id: 0, method: "elicitation/create", params: { message: "Deploy?", requestedSchema: { type: "object", properties: {} } } };
        const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 0 } };
        fs.writeSync(1, JSON.stringify(ask) + "\\n" + JSON.stringify(cancel) + "\\n");
        const answer = (text) => { clearTimeout(late); send({ id: request.id, result: { content: [{ type: "text", text }] } }); };
        const late = setTimeout(() => answer("the question was still open 3 s later"), 3_000);
        onAnswer = () => answer("the client stopped");`,
      onOther: "if (request.id === 0 && request.method === undefined) onAnswer();",
    });
    const mcp = createMcpExtension({
      id: "hasty",
      server: { command: process.execPath, args: ["-e", server] },
      elicitation: {},
    });
    const runtime = await createAgentRuntime({ base: [mcp] });
    const asked: boolean[] = [];

    const turn = await runMcpTurn({
      runtime,
      script: [response([toolCall("ask", {})]), "Done."],
      answerActionRequest: (_request, signal) => {
        asked.push(signal.aborted);
        return new Promise((resolve) => signal.addEventListener("abort", () => resolve({ action: "cancel" })));
      },
    });

    expect(turn.toolResults.map((result) => result.text)).toEqual(["the client stopped"]);
    // Asked at most with the question already withdrawn.
    expect(asked.every((aborted) => aborted)).toBe(true);
    await runtime.dispose();
  });
});
