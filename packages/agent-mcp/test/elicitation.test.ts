import type { ActionRequestAnswerer } from "@turnkit/agent-core";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { createAgentRuntime } from "@turnkit/agent-runtime";
import type { ActionRequiredPayload, RuntimeEvent } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import { createMcpExtension } from "../src/index.js";
import { startHttpFixture } from "./fixtures/http-fixture.js";
import { stdioFixture } from "./fixtures/stdio-fixture.js";
import { runMcpTurn } from "./support/run-mcp-turn.js";

const BRANCH_SCHEMA = {
  type: "object",
  properties: {
    branch: { type: "string", title: "Branch", minLength: 1 },
    force: { type: "boolean", title: "Force push" },
  },
  required: ["branch"],
};

const askPerson = [response([toolCall("ask_person", {}, { id: "call-1" })]), "Done."];

function questions(events: readonly RuntimeEvent[]): ActionRequiredPayload[] {
  return events.flatMap((event) => (event.type === "action.required" ? [event.payload] : []));
}

describe("elicitation: a server asks the person through the turn", { timeout: 15_000 }, () => {
  it("allowed over stdio: the question is the turn's action.required, and the person's answer goes back to the server", async () => {
    const fixture = stdioFixture();
    const mcp = createMcpExtension({ id: "deployer", server: fixture.server, elicitation: { timeoutMs: 100 } });
    const runtime = await createAgentRuntime({ base: [mcp] });
    const asked: ActionRequiredPayload[] = [];
    const accept: ActionRequestAnswerer = (request) => {
      asked.push(request);
      return { action: "accept", content: { branch: "main", force: true } };
    };

    const accepted = await runMcpTurn({ runtime, script: askPerson, answerActionRequest: accept });
    expect(accepted.outcome).toEqual({ kind: "completed" });
    expect(accepted.toolResults[0]).toMatchObject({
      isError: false,
      text: 'person said: accept {"branch":"main","force":true}',
    });
    const question = {
      kind: "elicitation",
      message: "Which branch should I deploy?",
      requestedSchema: BRANCH_SCHEMA,
      serverName: "deployer",
      toolCallId: "call-1",
      requestId: "elicitation:call-1:1",
      messageId: "msg-1",
      timeoutMs: 100,
    };
    expect(questions(accepted.events)).toEqual([question]);
    expect(asked).toEqual([question]);

    // Nobody answers within elicitation.timeoutMs: the server gets cancel.
    const unanswered = await runMcpTurn({
      runtime,
      turnId: "t2",
      script: askPerson,
      answerActionRequest: () => new Promise(() => {}),
    });
    expect(unanswered.toolResults[0]).toMatchObject({ isError: false, text: "person said: cancel" });

    // A turn whose host answers nothing: decline, at once.
    const nobody = await runMcpTurn({ runtime, turnId: "t3", script: askPerson });
    expect(nobody.toolResults[0]).toMatchObject({ isError: false, text: "person said: decline" });
    expect(questions(nobody.events)).toEqual([]);

    // Content that does not match the server's schema never reaches it as an answer.
    const wrong = await runMcpTurn({
      runtime,
      turnId: "t4",
      script: askPerson,
      answerActionRequest: () => ({ action: "accept", content: { branch: "", force: "yes" } }),
    });
    expect(wrong.toolResults[0]).toMatchObject({ isError: true });
    expect(wrong.toolResults[0]!.text).toBe(
      "elicitation failed: MCP error -32602: the answer does not match the requested schema: data/branch must NOT have fewer than 1 characters, data/force must be boolean",
    );

    // A schema MCP does not allow (a nested object) is refused before anyone is asked.
    let bothered = false;
    const badly = await runMcpTurn({
      runtime,
      turnId: "t5",
      script: [response([toolCall("ask_person_badly", {})]), "Done."],
      answerActionRequest: () => {
        bothered = true;
        return { action: "decline" };
      },
    });
    expect(badly.toolResults[0]).toMatchObject({ isError: true });
    // The SDK's client checks the request against MCP's schema and answers Invalid params with its (Zod) issues.
    expect(badly.toolResults[0]!.text).toMatch(/^elicitation failed: MCP error -32602: /);
    expect(badly.toolResults[0]!.text).toContain('"requestedSchema"');
    expect(bothered).toBe(false);
    expect(questions(badly.events)).toEqual([]);
    await runtime.dispose();
  });

  it("the call's callTimeoutMs waits while the person is asked: an answer later than it still reaches the server", async () => {
    const fixture = stdioFixture();
    const mcp = createMcpExtension({
      id: "deployer",
      server: fixture.server,
      callTimeoutMs: 300,
      elicitation: { timeoutMs: 10_000 },
    });
    const runtime = await createAgentRuntime({ base: [mcp] });
    const slowPerson: ActionRequestAnswerer = async () => {
      await new Promise((resolve) => setTimeout(resolve, 700));
      return { action: "accept", content: { branch: "main" } };
    };
    const turn = await runMcpTurn({ runtime, script: askPerson, answerActionRequest: slowPerson });
    expect(turn.toolResults.map(({ isError, text }) => ({ isError, text }))).toEqual([
      { isError: false, text: 'person said: accept {"branch":"main"}' },
    ]);
    expect(fixture.log().filter((entry) => entry.event === "cancelled")).toEqual([]);
    await runtime.dispose();
  });

  it("allowed over Streamable HTTP: a decline goes back to the server", async () => {
    const http = await startHttpFixture();
    const mcp = createMcpExtension({ id: "deployer", server: { url: http.url }, elicitation: {} });
    const runtime = await createAgentRuntime({ base: [mcp] });
    const turn = await runMcpTurn({ runtime, script: askPerson, answerActionRequest: () => ({ action: "decline" }) });
    expect(turn.toolResults[0]).toMatchObject({ isError: false, text: "person said: decline" });
    expect(questions(turn.events)).toMatchObject([
      { kind: "elicitation", serverName: "deployer", toolCallId: "call-1", requestedSchema: BRANCH_SCHEMA },
    ]);
    await runtime.dispose();
  });

  it("refused by default: the client does not declare elicitation, so the server's request fails and nobody is asked", async () => {
    const http = await startHttpFixture();
    const mcp = createMcpExtension({ id: "deployer", server: { url: http.url } });
    const runtime = await createAgentRuntime({ base: [mcp] });
    let bothered = false;
    const turn = await runMcpTurn({
      runtime,
      script: askPerson,
      answerActionRequest: () => {
        bothered = true;
        return { action: "decline" };
      },
    });
    expect(turn.toolResults[0]).toMatchObject({ isError: true });
    expect(turn.toolResults[0]!.text).toMatch(/^elicitation failed: MCP error -32601: Method not found/);
    expect(bothered).toBe(false);
    expect(questions(turn.events)).toEqual([]);
    await runtime.dispose();
  });
});
