import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { CallsInFlight } from "../src/calls-in-flight.js";
import { SamplingBroker } from "../src/sampling.js";
import { startHttpFixture } from "./fixtures/http-fixture.js";
import { stdioFixture } from "./fixtures/stdio-fixture.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

describe("sampling: a server asks the turn's model", { timeout: 15_000 }, () => {
  it("allowed by the host: served by the turn's auxiliary stream function, maxTokens capped, counted in the turn's usage", async () => {
    const fixture = stdioFixture();
    const mcp = createMcpExtension({ id: "thinker", server: fixture.server, sampling: { maxTokens: 64 } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({
      runtime,
      script: [response([toolCall("ask_model", { question: "What is 2+2?" })]), "Four.", "It says four."],
    });

    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.toolResults[0]).toMatchObject({ isError: false });
    expect(turn.toolResults[0]!.text).toMatch(/^model said: Four\. \(.+, endTurn\)$/);
    const sampled = turn.model.requests[1]!;
    expect(sampled.context.systemPrompt).toBe("Answer in one line.");
    expect(sampled.context.messages).toMatchObject([
      { role: "user", content: [{ type: "text", text: "What is 2+2?" }] },
    ]);
    expect(sampled.options.maxTokens).toBe(64); // the server asked for 100,000
    // The sampling request is the turn's auxiliary request: in its usage, not in its transcript.
    const terminal = turn.events.at(-1)!;
    expect(terminal.type === "session.status" && terminal.payload.usage?.attempts).toEqual({ main: 2, auxiliary: 1 });
    expect(turn.persisted.some((message) => JSON.stringify(message).includes("Four."))).toBe(true);
    expect(turn.persisted.filter((message) => message.role === "assistant")).toHaveLength(2);
    await runtime.dispose();
  });

  it("served only while calls of exactly one turn run: none, or calls of two turns, are refused", async () => {
    const calls = new CallsInFlight();
    const broker = new SamplingBroker(calls, 64);
    const params = {
      messages: [{ role: "user" as const, content: { type: "text" as const, text: "Hi" } }],
      maxTokens: 10,
    };
    const never = new AbortController().signal;
    await expect(broker.createMessage(params, never)).rejects.toThrow(
      "sampling refused: no tool call of this server is running, so no turn's model can serve it",
    );
    const call = (turnId: string) => ({
      ctx: { sessionId: "s", turnId, toolCallId: `call-${turnId}`, assistantMessageId: undefined },
      name: "ask_model",
      args: {},
      signal: never,
      onUpdate: () => {},
    });
    const untrack = [calls.track(call("t1")), calls.track(call("t2"))];
    await expect(broker.createMessage(params, never)).rejects.toThrow(
      "sampling refused: calls of several turns are running, so no turn's model can serve it",
    );
    untrack[1]!();
    await expect(broker.createMessage(params, never)).rejects.toThrow(
      "sampling refused: the turn's model is not known",
    );
  });

  it("a request no model can answer (no messages, maxTokens not above 0) is refused naming the field, before any model is asked", async () => {
    const broker = new SamplingBroker(new CallsInFlight(), 64);
    const never = new AbortController().signal;
    const hi = [{ role: "user" as const, content: { type: "text" as const, text: "Hi" } }];
    await expect(broker.createMessage({ messages: [], maxTokens: 10 }, never)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("sampling refused: messages is empty: there is nothing to answer"),
    });
    for (const maxTokens of [0, -3])
      await expect(broker.createMessage({ messages: hi, maxTokens }, never)).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining(
          `sampling refused: maxTokens must be a whole number of at least 1 (it was ${maxTokens})`,
        ),
      });
  });

  it("refused by default: the client neither declares nor serves sampling, so the server's request fails and the call reports it", async () => {
    const http = await startHttpFixture();
    const mcp = createMcpExtension({ id: "thinker", server: { url: http.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });

    const turn = await runMcpTurn({
      runtime,
      script: [response([toolCall("ask_model", { question: "What is 2+2?" })]), "No model for it."],
    });

    expect(turn.toolResults[0]).toMatchObject({ isError: true });
    expect(turn.toolResults[0]!.text).toMatch(/^sampling failed: MCP error -32601: Method not found/);
    expect(turn.model.requests).toHaveLength(2); // no request for the server
    await runtime.dispose();
  });
});
