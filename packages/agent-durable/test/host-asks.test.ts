/*
 * What a durable turn's setup and tools tell or ask the host, with the worker
 * in the test process (its buildTurn is a closure here): the setup's
 * warnings, logged once and the same on a replay; what a tool call asks the
 * host (`ctx.askHost`), answered, declined, timed out and aborted.
 */
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import { Type } from "@sinclair/typebox";
import { defineRuntimeTool, defineSubAgent } from "@turnkit/agent-core";
import { assertRuntimeEventSequence, createScriptedModel, response, toolCall } from "@turnkit/agent-core/testing";
import type { StreamFn } from "@turnkit/agent-loop";
import type { RuntimeEvent, RuntimeWarningPayload } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import { type BuildDurableTurn, type DurableTurnRef, DurableTurnError, durableTool } from "../src/index.js";
import { assertLogInvariants } from "./support/log-assertions.js";
import { useInProcessWorker } from "./support/in-process-worker.js";
import { waitFor } from "./support/worker-cluster.js";

const WORKER_ID = "in-test-asks";

/** The warnings `buildTurn` finds for a turn, by turn id (a test changes them between executions). */
const setupWarnings = new Map<string, RuntimeWarningPayload[]>();

/** A tool that asks the person for a branch name (an elicitation, as an MCP server's) and reports how the ask ended. */
const askPerson = (timeoutMs: number | undefined) =>
  defineRuntimeTool({
    name: "ask_person",
    description: "Asks the person which branch to use",
    parameters: Type.Object({}),
    execute: async (ctx) => {
      const outcome = await ctx.askHost!(
        {
          kind: "elicitation",
          message: "Which branch?",
          requestedSchema: { type: "object", properties: { branch: { type: "string" } } },
          serverName: "git",
        },
        timeoutMs === undefined ? {} : { timeoutMs },
      );
      return { content: [{ type: "text", text: JSON.stringify(outcome) }] };
    },
  });

/**
 * A sub-agent whose model calls `deploy` (which needs a person's approval)
 * and `ask_person`, then answers with their results.
 */
function deployer(turnId: string) {
  const streamFn: StreamFn = (model, context, options) => {
    const results = context.messages.filter((m) => m.role === "toolResult");
    const entry =
      results.length > 0
        ? `child saw: ${results.map((m) => m.content.map((b) => (b.type === "text" ? b.text : "")).join("")).join(" | ")}`
        : response([
            toolCall("deploy", {}, { id: `${turnId}-deploy` }),
            toolCall("ask_person", {}, { id: `${turnId}-child-ask` }),
          ]);
    return createScriptedModel([entry]).streamFn(model, context, options);
  };
  const deploy = defineRuntimeTool({
    name: "deploy",
    description: "Deploys",
    parameters: Type.Object({}),
    execute: async () => ({ content: [{ type: "text", text: "deployed" }] }),
  });
  return defineSubAgent({
    name: "deployer",
    description: "Deploys with a person's approval",
    systemPrompt: "You deploy.",
    llm: { model: createScriptedModel([]).model, streamFn },
    tools: [durableTool(deploy, { requiresApproval: true }), askPerson(undefined)],
    llmRetry: false,
  });
}

/** Which tools of the `pair` sub-agent have started, by turn: each waits (at most 3 s) for the other. */
const arrived = new Map<string, Set<string>>();

/** A parallel tool of the `pair` sub-agent: answers "met" when the other one started while it waited, "alone" otherwise. */
function meeting(name: string, other: string) {
  return defineRuntimeTool({
    name,
    description: `Waits for ${other}`,
    parameters: Type.Object({}),
    executionMode: "parallel",
    execute: async (ctx) => {
      const seen = arrived.get(ctx.turnId) ?? new Set<string>();
      arrived.set(ctx.turnId, seen.add(name));
      const deadline = Date.now() + 3_000;
      while (!seen.has(other) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      return { content: [{ type: "text", text: seen.has(other) ? `${name} met ${other}` : `${name} alone` }] };
    },
  });
}

/** A sub-agent whose model calls two parallel tools that wait for each other, then answers with their results. */
function pair(turnId: string) {
  const streamFn: StreamFn = (model, context, options) => {
    const results = context.messages.filter((m) => m.role === "toolResult");
    const entry =
      results.length > 0
        ? `pair saw: ${results.map((m) => m.content.map((b) => (b.type === "text" ? b.text : "")).join("")).join(" | ")}`
        : response([toolCall("meet_a", {}, { id: `${turnId}-a` }), toolCall("meet_b", {}, { id: `${turnId}-b` })]);
    return createScriptedModel([entry]).streamFn(model, context, options);
  };
  return defineSubAgent({
    name: "pair",
    description: "Runs two tools that meet",
    systemPrompt: "You meet.",
    llm: { model: createScriptedModel([]).model, streamFn },
    tools: [meeting("meet_a", "meet_b"), meeting("meet_b", "meet_a")],
    llmRetry: false,
  });
}

/** A tool of the host's turn that needs a person's approval. */
const release = durableTool(
  defineRuntimeTool({
    name: "release",
    description: "Releases",
    parameters: Type.Object({}),
    execute: async () => ({ content: [{ type: "text", text: "released" }] }),
  }),
  { requiresApproval: true },
);

/**
 * Responses of a model that names every call `call_0`, as some OpenAI-compatible servers do: two asks, two
 * releases, two calls of the `deployer` sub-agent (whose children name their calls alike), then an answer.
 */
const REUSED_ID_SCRIPT = ["ask_person", "ask_person", "release", "release", "deployer", "deployer"];

/**
 * `ask`: one call of `ask_person`, then an answer quoting its result; `reused-ids`: {@link REUSED_ID_SCRIPT}; `child-asks`: one call of `deployer`;
 * `child-twins`: two calls of `deployer`, whose children call their tools under the same ids; anything else answers "ok".
 */
const buildTurn: BuildDurableTurn = (request) => {
  const ask = request.metadata?.scenario === "ask";
  const childAsks = request.metadata?.scenario === "child-asks";
  const childPair = request.metadata?.scenario === "child-pair";
  const childTwins = request.metadata?.scenario === "child-twins";
  const reusedIds = request.metadata?.scenario === "reused-ids";
  const streamFn: StreamFn = (model, context, options) => {
    const last = context.messages.at(-1);
    if (reusedIds) {
      const next = REUSED_ID_SCRIPT[context.messages.filter((m) => m.role === "toolResult").length];
      const args = next === "deployer" ? { task: "deploy" } : {};
      const entry = next === undefined ? "done" : response([toolCall(next, args, { id: "call_0" })]);
      return createScriptedModel([entry]).streamFn(model, context, options);
    }
    const entry =
      last?.role === "toolResult"
        ? `after: ${last.content.map((block) => (block.type === "text" ? block.text : "")).join("")}`
        : ask
          ? response([toolCall("ask_person", {}, { id: `${request.turnId}-ask` })])
          : childAsks
            ? response([toolCall("deployer", { task: "deploy it" }, { id: `${request.turnId}-deployer` })])
            : childPair
              ? response([toolCall("pair", { task: "meet" }, { id: `${request.turnId}-pair` })])
              : childTwins
                ? response([
                    toolCall("deployer", { task: "one" }, { id: `${request.turnId}-one` }),
                    toolCall("deployer", { task: "two" }, { id: `${request.turnId}-two` }),
                  ])
                : "ok";
    return createScriptedModel([entry]).streamFn(model, context, options);
  };
  const timeoutMs = request.metadata?.timeoutMs;
  return {
    systemPrompt: "You are a test assistant.",
    llm: { model: createScriptedModel([]).model, streamFn },
    llmRetry: false,
    tools: [
      askPerson(timeoutMs === undefined ? undefined : Number(timeoutMs)),
      deployer(request.turnId),
      pair(request.turnId),
      release,
    ],
    warnings: setupWarnings.get(request.turnId),
  };
};

const fixture = useInProcessWorker({ workerId: WORKER_ID, concurrency: 4, buildTurn });

describe("a sub-agent's parallel tools in a durable turn", () => {
  it("run at the same time, as in process: each finds the other running", async () => {
    const turn = await fixture.worker.client.start({
      sessionId: "s-child-pair",
      turnId: "child-pair",
      userMessage: { text: "meet" },
      metadata: { scenario: "child-pair" },
    });
    expect(await fixture.worker.client.outcome(turn)).toMatchObject({ kind: "completed" });
    const events = await fixture.worker.client.readEvents(turn);
    expect(assertRuntimeEventSequence(events)).toBe("completed");
    const childResults = events.flatMap((e) =>
      e.origin && e.type === "message.persisted"
        ? e.payload.messages.filter((m) => (m as { role?: string }).role === "toolResult")
        : [],
    );
    expect(childResults.map((m) => (m as { content: { text: string }[] }).content[0]!.text)).toEqual([
      "meet_a met meet_b",
      "meet_b met meet_a",
    ]);
  }, 60_000);
});

describe("the setup's warnings", () => {
  it("are logged right after the first status, in order; a replay logs the ones the first execution found", async () => {
    const found: RuntimeWarningPayload[] = [
      { code: "extension_degraded", message: "docs is down", extensionId: "mcp:docs", tools: ["docs_search"] },
      { code: "extension_degraded", message: "search is down", extensionId: "mcp:search", tools: [] },
    ];
    setupWarnings.set("warned", found);
    const turn = await fixture.worker.client.start({
      sessionId: "s-warned",
      turnId: "warned",
      userMessage: { text: "hi" },
    });
    expect(await fixture.worker.client.outcome(turn)).toMatchObject({ kind: "completed" });
    const before = await fixture.worker.client.readEvents(turn);
    assertLogInvariants(before);
    expect(before.slice(0, 3).map((e) => [e.type, e.payload])).toEqual([
      ["session.status", { status: "running" }],
      ["runtime.warning", found[0]],
      ["runtime.warning", found[1]],
    ]);

    // Run again from the top, as after a crash once the turn ended: buildTurn now finds one warning only.
    setupWarnings.set("warned", [found[1]!]);
    await fixture.replay(turn);
    expect(await fixture.worker.client.readEvents(turn)).toEqual(before);
    // The replay took the recorded warnings (two), not the ones its buildTurn found, so it numbered as the first did.
    const dbos = await DBOSClient.create({ systemDatabaseUrl: fixture.postgres.url });
    try {
      const steps = (await dbos.listWorkflowSteps(turn.workflowId)) ?? [];
      const starts = steps.filter((step) => step.name === "turnkit.start");
      expect(starts.map((step) => (step.output as { warnings: unknown }).warnings)).toEqual([found]);
    } finally {
      await dbos.destroy();
    }
  }, 90_000);
});

/** Starts an `ask` turn and waits for its question in the log. */
async function startAsking(turnId: string, metadata: Record<string, unknown> = {}): Promise<DurableTurnRef> {
  const turn = await fixture.worker.client.start({
    sessionId: `s-${turnId}`,
    turnId,
    userMessage: { text: "pick a branch" },
    metadata: { scenario: "ask", ...metadata },
  });
  await waitFor("the question in the log", async () =>
    (await fixture.worker.client.readEvents(turn)).some((e) => e.type === "action.required"),
  );
  return turn;
}

/** The `action.request` traces: how each ask ended. */
function askEndings(events: RuntimeEvent[]): unknown[] {
  return events.flatMap((e) =>
    e.type === "debug.trace" && e.payload.phase === "action.request" ? [e.payload.attrs] : [],
  );
}

/** The text of the turn's tool result (what the tool saw of its ask). */
function toolResultOf(events: RuntimeEvent[]): unknown {
  const persisted = events.flatMap((e) => (e.type === "message.persisted" ? e.payload.messages : []));
  const result = persisted.find((m) => (m as { role?: string }).role === "toolResult") as
    | { content: { text: string }[] }
    | undefined;
  return result ? JSON.parse(result.content[0]!.text) : undefined;
}

const requestId = (turnId: string) => `elicitation:${turnId}-ask:1`;

/** Waits until `turn` has logged its `n`-th `action.required`, and returns it. */
async function nthRequest(turn: DurableTurnRef, n: number) {
  const requests = async () =>
    (await fixture.worker.client.readEvents(turn)).filter((e) => e.type === "action.required");
  await waitFor(`request ${n}`, async () => (await requests()).length === n);
  return (await requests()).at(-1)!;
}

describe("what a tool call asks the host", () => {
  it("answered: the question is logged once, the answer reaches the call; bad answers are refused by type", async () => {
    const turn = await startAsking("answered");
    const [asked] = (await fixture.worker.client.readEvents(turn)).filter((e) => e.type === "action.required");
    expect(asked!.payload).toEqual({
      requestId: requestId("answered"),
      kind: "elicitation",
      toolCallId: "answered-ask",
      messageId: expect.any(String),
      message: "Which branch?",
      requestedSchema: { type: "object", properties: { branch: { type: "string" } } },
      serverName: "git",
      timeoutMs: 600_000,
    });
    const rejected = (code: string) => (e: unknown) => DurableTurnError.isInstance(e) && e.code === code;
    await expect(fixture.worker.client.respond(turn, "elicitation:nothing:1", { action: "decline" })).rejects.toSatisfy(
      rejected("unknown_request"),
    );
    await expect(fixture.worker.client.respond(turn, requestId("answered"), { approved: true })).rejects.toSatisfy(
      rejected("invalid_input"),
    );
    await fixture.worker.client.respond(turn, requestId("answered"), { action: "accept", content: { branch: "main" } });
    // The first answer wins.
    await fixture.worker.client.respond(turn, requestId("answered"), { action: "decline" });
    expect(await fixture.worker.client.outcome(turn)).toMatchObject({ kind: "completed" });
    const events = await fixture.worker.client.readEvents(turn);
    assertLogInvariants(events);
    expect(events.filter((e) => e.type === "action.required")).toHaveLength(1);
    expect(toolResultOf(events)).toEqual({
      kind: "answered",
      requestId: requestId("answered"),
      answer: { action: "accept", content: { branch: "main" } },
    });
    expect(askEndings(events)).toEqual([
      { requestId: requestId("answered"), kind: "elicitation", outcome: "answered" },
    ]);
  }, 60_000);

  it("declined: the call gets the person's no", async () => {
    const turn = await startAsking("declined");
    await fixture.worker.client.respond(turn, requestId("declined"), { action: "decline" });
    expect(await fixture.worker.client.outcome(turn)).toMatchObject({ kind: "completed" });
    const events = await fixture.worker.client.readEvents(turn);
    expect(toolResultOf(events)).toMatchObject({ kind: "answered", answer: { action: "decline" } });
  }, 60_000);

  it("a timeout of Infinity waits until answered; one not more than 0 is refused without asking", async () => {
    const patient = await startAsking("patient", { timeoutMs: "Infinity" });
    await fixture.worker.client.respond(patient, requestId("patient"), { action: "cancel" });
    expect(await fixture.worker.client.outcome(patient)).toMatchObject({ kind: "completed" });
    expect(toolResultOf(await fixture.worker.client.readEvents(patient))).toMatchObject({
      answer: { action: "cancel" },
    });

    const refused = await fixture.worker.client.start({
      sessionId: "s-zero",
      turnId: "zero",
      userMessage: { text: "pick a branch" },
      metadata: { scenario: "ask", timeoutMs: 0 },
    });
    expect(await fixture.worker.client.outcome(refused)).toMatchObject({ kind: "completed" });
    const events = await fixture.worker.client.readEvents(refused);
    assertLogInvariants(events);
    expect(events.filter((e) => e.type === "action.required")).toEqual([]);
    expect(toolResultOf(events)).toMatchObject({ kind: "refused", reason: expect.stringMatching(/timeoutMs/) });
  }, 60_000);

  it("timed out: nobody answers within the call's timeout", async () => {
    const turn = await startAsking("silent", { timeoutMs: 300 });
    expect(await fixture.worker.client.outcome(turn)).toMatchObject({ kind: "completed" });
    const events = await fixture.worker.client.readEvents(turn);
    assertLogInvariants(events);
    expect(toolResultOf(events)).toEqual({ kind: "timed_out", requestId: requestId("silent"), timeoutMs: 300 });
    expect(askEndings(events)).toEqual([{ requestId: requestId("silent"), kind: "elicitation", outcome: "timed_out" }]);
  }, 60_000);

  it("aborted: the turn's abort ends the wait, and the turn ends aborted with the call answered", async () => {
    const turn = await startAsking("abandoned");
    await fixture.worker.client.abort(turn);
    expect(await fixture.worker.client.outcome(turn)).toMatchObject({ kind: "aborted" });
    const events = await fixture.worker.client.readEvents(turn);
    assertLogInvariants(events);
    expect(toolResultOf(events)).toEqual({ kind: "aborted", requestId: requestId("abandoned") });
    expect(askEndings(events)).toEqual([
      { requestId: requestId("abandoned"), kind: "elicitation", outcome: "aborted" },
    ]);
  }, 60_000);

  it("inside a sub-agent: the child's approval and its tool's question are answered by the host, marked as the child's, and the child goes on", async () => {
    const turn = await fixture.worker.client.start({
      sessionId: "s-child-asks",
      turnId: "child-asks",
      userMessage: { text: "deploy" },
      metadata: { scenario: "child-asks" },
    });
    const questions = (n: number) => nthRequest(turn, n);
    // The calls run one at a time: the approval of `deploy` first, then the question of `ask_person`.
    expect((await questions(1)).payload).toMatchObject({
      kind: "tool_approval",
      requestId: "approval:child-asks-deployer/child-asks-deploy",
    });
    await fixture.worker.client.respond(turn, "approval:child-asks-deployer/child-asks-deploy", { approved: true });
    expect((await questions(2)).payload).toMatchObject({
      kind: "elicitation",
      requestId: "elicitation:child-asks-deployer/child-asks-child-ask:1",
    });
    await fixture.worker.client.respond(turn, "elicitation:child-asks-deployer/child-asks-child-ask:1", {
      action: "accept",
      content: { branch: "dev" },
    });
    expect(await fixture.worker.client.outcome(turn)).toMatchObject({ kind: "completed" });
    const events = await fixture.worker.client.readEvents(turn);
    assertLogInvariants(events);
    expect(assertRuntimeEventSequence(events)).toBe("completed");
    // What the durable layer logged for the child (its approval, its tool's question, how each ended) is the child's.
    const origin = {
      toolCallId: "child-asks-deployer",
      path: [{ toolCallId: "child-asks-deployer", agent: "deployer" }],
      turnId: "child-asks/child-asks-deployer",
    };
    const asked = events.filter(
      (e) =>
        e.type === "action.required" ||
        (e.type === "debug.trace" && ["durable.approval", "action.request"].includes(e.payload.phase)),
    );
    expect(asked.map((e) => [e.type, e.origin])).toEqual([
      ["action.required", { ...origin, seq: expect.any(Number) }],
      ["debug.trace", { ...origin, seq: expect.any(Number) }],
      ["action.required", { ...origin, seq: expect.any(Number) }],
      ["debug.trace", { ...origin, seq: expect.any(Number) }],
    ]);
    // The child's own sequence counts its logged events, 1, 2, 3, ...
    const childSeqs = events.flatMap((e) => (e.origin ? [e.origin.seq] : []));
    expect(childSeqs).toEqual(childSeqs.map((_, i) => i + 1));
    const childAnswer = events.find(
      (e) => e.origin && e.type === "message.persisted" && JSON.stringify(e.payload).includes("child saw"),
    );
    expect(JSON.stringify(childAnswer?.payload)).toContain('child saw: deployed | {\\"kind\\":\\"answered\\"');
  }, 60_000);

  it("two sub-agent calls whose children call their tools under the same ids: each child's approval and question are its own", async () => {
    const turn = await fixture.worker.client.start({
      sessionId: "s-child-twins",
      turnId: "twins",
      userMessage: { text: "deploy twice" },
      metadata: { scenario: "child-twins" },
    });
    const asked = async (n: number) => (await nthRequest(turn, n)).payload.requestId;
    // The two calls run one after the other; each child asks under its parent call's id.
    for (const [call, branch] of [
      ["twins-one", "dev"],
      ["twins-two", "prod"],
    ]) {
      const n = call === "twins-one" ? 1 : 3;
      expect(await asked(n)).toBe(`approval:${call}/twins-deploy`);
      await fixture.worker.client.respond(turn, `approval:${call}/twins-deploy`, { approved: true });
      expect(await asked(n + 1)).toBe(`elicitation:${call}/twins-child-ask:1`);
      await fixture.worker.client.respond(turn, `elicitation:${call}/twins-child-ask:1`, {
        action: "accept",
        content: { branch },
      });
    }
    expect(await fixture.worker.client.outcome(turn)).toMatchObject({ kind: "completed" });
    const events = await fixture.worker.client.readEvents(turn);
    expect(assertRuntimeEventSequence(events)).toBe("completed");
    // Each child got its own answer.
    const childAnswers = events.flatMap((e) =>
      e.origin && e.type === "message.persisted" && JSON.stringify(e.payload).includes("child saw")
        ? [[e.origin.toolCallId, JSON.stringify(e.payload).match(/branch\\":\\"(\w+)/)?.[1]]]
        : [],
    );
    expect(childAnswers).toEqual([
      ["twins-one", "dev"],
      ["twins-two", "prod"],
    ]);
  }, 60_000);

  it("a model that names every response's call call_0: each call asks under its own id, none takes another's answer", async () => {
    const turn = await fixture.worker.client.start({
      sessionId: "s-reused-ids",
      turnId: "reused-ids",
      userMessage: { text: "ask twice, release twice" },
      metadata: { scenario: "reused-ids" },
    });
    const answers: [string, object][] = [
      ["elicitation:call_0:1", { action: "accept", content: { branch: "dev" } }],
      ["elicitation:call_0#2:1", { action: "accept", content: { branch: "prod" } }],
      ["approval:call_0", { approved: true }],
      ["approval:call_0#2", { approved: false, reason: "not twice" }],
      // Call keys count the calls that start running (the denied release never did), so the sub-agent's
      // two calls are the fourth and fifth under call_0: each child asks under its own call's key.
      ["approval:call_0#4/reused-ids-deploy", { approved: true }],
      ["elicitation:call_0#4/reused-ids-child-ask:1", { action: "accept", content: { branch: "four" } }],
      ["approval:call_0#5/reused-ids-deploy", { approved: true }],
      ["elicitation:call_0#5/reused-ids-child-ask:1", { action: "accept", content: { branch: "five" } }],
    ];
    for (const [n, [id, answer]] of answers.entries()) {
      expect((await nthRequest(turn, n + 1)).payload.requestId).toBe(id);
      await fixture.worker.client.respond(turn, id, answer as never);
    }
    expect(await fixture.worker.client.outcome(turn)).toMatchObject({ kind: "completed" });
    const events = await fixture.worker.client.readEvents(turn);
    expect(assertRuntimeEventSequence(events)).toBe("completed");
    const results = events.flatMap((e) =>
      e.type === "message.persisted" && !e.origin
        ? e.payload.messages.flatMap((m) =>
            m.role === "toolResult" ? [(m as { content: { text: string }[] }).content[0]!.text] : [],
          )
        : [],
    );
    expect(results.map((text) => text.match(/branch":"(\w+)/)?.[1] ?? text)).toEqual([
      "dev",
      "prod",
      "released",
      expect.stringContaining("not twice"),
      "four",
      "five",
    ]);
    const children = events.flatMap((e) =>
      e.origin && e.type === "session.status" && e.payload.status === "running" ? [e.origin.turnId] : [],
    );
    expect(children).toEqual(["reused-ids/call_0#4", "reused-ids/call_0#5"]);
  }, 60_000);
});
