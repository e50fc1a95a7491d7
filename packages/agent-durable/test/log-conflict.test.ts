/*
 * A turn whose execution diverged from its event log: the log holds another
 * event under a seq the execution writes (`log_conflict`), as when a replay
 * takes another path than the execution that logged it. The turn stops at
 * once (it does not go on to wait for a person nobody is asked), ends
 * `failed` naming the conflict in a terminal status after the log's last
 * event, and its session takes the next turn. Before, the turn ran on with
 * nothing logged (here into an approval wait of a day, which nobody could
 * answer: its request was never logged), so `outcome` and `follow` hung.
 */
import { Type } from "@sinclair/typebox";
import { defineRuntimeTool } from "@turnkit/agent-core";
import { assertToolCallsAnswered, createScriptedModel, response, toolCall } from "@turnkit/agent-core/testing";
import { createRuntimeEvent, type RuntimeEvent, type TurnOutcome } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import { type BuildDurableTurn, durableTool } from "../src/index.js";
import { turnRef } from "../src/turn/turn-request.js";
import { useInProcessWorker } from "./support/in-process-worker.js";
import { assertLogInvariants } from "./support/log-assertions.js";

const deploy = durableTool(
  defineRuntimeTool({
    name: "deploy",
    description: "Deploys",
    parameters: Type.Object({}),
    execute: async () => ({ content: [{ type: "text", text: "deployed" }] }),
  }),
  { requiresApproval: true },
);

/** Throws for `diverged-broken` (as when an MCP server is down); else a deploying turn. */
const buildTurn: BuildDurableTurn = (request) => {
  if (request.turnId === "diverged-broken") throw new Error("the MCP server is down");
  return deployingTurn(request);
};

/** Asks to deploy (which waits for a person) unless the last message is a tool result; then answers "done". */
const deployingTurn: BuildDurableTurn = (request) => ({
  systemPrompt: "You deploy.",
  llm: {
    model: createScriptedModel([]).model,
    streamFn: (model, context, options) => {
      const last = context.messages[context.messages.length - 1];
      const entry =
        last?.role === "toolResult" || request.turnId !== "diverged"
          ? response("done")
          : response([toolCall("deploy", {}, { id: "deploy-1" })]);
      return createScriptedModel([entry]).streamFn(model, context, options);
    },
  },
  llmRetry: false,
  tools: [deploy],
});

const fixture = useInProcessWorker({ workerId: "in-test-conflict", buildTurn, approvalTimeoutMs: 600_000 });

/** Resolves with what `promise` settled with, or "still waiting" after `ms`. */
function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | { error: unknown } | "still waiting"> {
  return Promise.race([
    promise.catch((error: unknown) => ({ error })),
    new Promise<"still waiting">((resolve) => setTimeout(() => resolve("still waiting"), ms).unref()),
  ]);
}

/** Stores what an earlier execution of the turn logged: the same first status, then an event this one does not write at seq 2. */
async function loggedEarlier(address: { sessionId: string; turnId: string }): Promise<RuntimeEvent[]> {
  const logged = (seq: number, type: RuntimeEvent["type"], payload: object) =>
    createRuntimeEvent({ eventId: `x#${seq}`, ...address, seq, type, payload: payload as never }) as RuntimeEvent;
  const earlier = [
    logged(1, "session.status", { status: "running" }),
    logged(2, "debug.trace", { phase: "earlier.path", level: "debug", message: "another path" }),
  ];
  for (const event of earlier)
    await fixture.db.query("INSERT INTO turnkit_durable.events (turn_key, seq, type, event) VALUES ($1, $2, $3, $4)", [
      turnRef(address).workflowId,
      event.seq,
      event.type,
      JSON.stringify(event),
    ]);
  return earlier;
}

describe("a turn whose execution diverged from its event log", () => {
  it("stops, ends failed naming the conflict (one ending, no gap), and its session takes the next turn", async () => {
    const address = { sessionId: "s-diverged", turnId: "diverged" };
    const earlier = await loggedEarlier(address);
    const { client } = fixture.worker;
    const turn = await client.start({ ...address, userMessage: { text: "deploy it" } });

    const outcome = await settledWithin(client.outcome(turn), 20_000);
    expect(outcome).toMatchObject({
      kind: "failed",
      error: { code: "internal", message: expect.stringMatching(/log_conflict.*as event 2/) },
    });
    const followed: RuntimeEvent[] = [];
    const follow = (async () => {
      for await (const event of client.follow(turn)) followed.push(event);
      return "ended";
    })();
    expect(await settledWithin(follow, 5_000)).toBe("ended");
    assertLogInvariants(followed);
    expect(followed.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(followed[1]).toEqual(earlier[1]);
    expect(followed[2]).toMatchObject({
      type: "session.status",
      payload: { status: "failed", error: (outcome as TurnOutcome & { kind: "failed" }).error },
    });
    expect(await client.listTurns(address.sessionId)).toMatchObject([
      { turnId: "diverged", state: "finished", outcome: "failed" },
    ]);

    // The session goes on: its next turn runs on a history where every call is answered.
    const next = await client.start({ ...address, turnId: "next", userMessage: { text: "and now?" } });
    expect(await settledWithin(client.outcome(next), 20_000)).toMatchObject({ kind: "completed" });
    const history = await client.readHistory(address.sessionId);
    assertToolCallsAnswered(history);
    expect(history.at(-1)).toMatchObject({ role: "assistant", content: [{ type: "text", text: "done" }] });
  }, 60_000);

  it("names the execution's own failure too (a buildTurn that threw when it ran again)", async () => {
    const address = { sessionId: "s-diverged-broken", turnId: "diverged-broken" };
    await loggedEarlier(address);
    const { client } = fixture.worker;
    const turn = await client.start({ ...address, userMessage: { text: "deploy it" } });
    expect(await settledWithin(client.outcome(turn), 20_000)).toMatchObject({
      kind: "failed",
      error: { code: "internal", message: expect.stringMatching(/log_conflict.*as event 2.*the MCP server is down/) },
    });
    const events = await client.readEvents(turn);
    assertLogInvariants(events);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3]);
  }, 60_000);
});
