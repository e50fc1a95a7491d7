/*
 * A replay of a turn that compacted its session's history, with the worker
 * in the test process: the replacement an earlier execution stored stays as
 * it is, and the changes the turn made before it (its user message) are not
 * written again over what the replacement left, nor announced as something
 * else.
 */
import { createHiddenMessage } from "@turnkit/agent-core";
import { createScriptedModel, response } from "@turnkit/agent-core/testing";
import type { AgentMessage } from "@turnkit/agent-loop";
import type { RuntimeEvent } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import type { BuildDurableTurn, DurableTurnRef } from "../src/index.js";
import { useInProcessWorker } from "./support/in-process-worker.js";
import { assertLogInvariants, userTexts } from "./support/log-assertions.js";

/** Answers "ok"; with `metadata.compact`, the first request's hook keeps only a summary and the turn's own message. */
const buildTurn: BuildDurableTurn = (request) => ({
  systemPrompt: "You are a test assistant.",
  llm: {
    model: createScriptedModel([]).model,
    streamFn: (model, context, options) => createScriptedModel([response("ok")]).streamFn(model, context, options),
  },
  llmRetry: false,
  hooks: {
    beforeLlmCallHook: (event) => {
      if (request.metadata?.compact !== true || event.reason !== "request" || event.requestIndex !== 0)
        return undefined;
      return {
        type: "replaceMessages",
        messages: [createHiddenMessage("Summary: two earlier turns.", "compaction"), event.messages.at(-1)!],
        description: "a compaction that shrinks the history",
      };
    },
  },
});

const fixture = useInProcessWorker({ workerId: "in-test", concurrency: 2, buildTurn });

async function storedHistory(sessionId: string): Promise<AgentMessage[]> {
  const { rows } = await fixture.db.query(
    "SELECT message FROM turnkit_durable.session_messages WHERE session_id = $1 ORDER BY position",
    [sessionId],
  );
  return rows.map((row: { message: AgentMessage }) => row.message);
}

async function runTurn(sessionId: string, turnId: string, compact = false): Promise<DurableTurnRef> {
  const turn = await fixture.worker.client.start({
    sessionId,
    turnId,
    userMessage: { text: `message of ${turnId}` },
    metadata: { compact },
  });
  expect(await fixture.worker.client.outcome(turn)).toMatchObject({ kind: "completed" });
  return turn;
}

/** The history a turn that did not compact left, by its log: every message it announced, in order. */
function historyOf(events: RuntimeEvent[]): unknown[] {
  return deltas(events).flatMap((e) => e.payload.messages);
}

/** The `message.persisted` events of the turn's own messages (not a replacement's). */
function deltas(events: RuntimeEvent[]): RuntimeEvent<"message.persisted">[] {
  return events.filter(
    (e): e is RuntimeEvent<"message.persisted"> =>
      e.type === "message.persisted" && e.payload.reason === "messageDelta",
  );
}

describe("a replay of a turn that compacted the history", () => {
  it("stores nothing again: the history is the replacement and what followed it, as before the replay", async () => {
    await runTurn("s-shrink", "t1");
    await runTurn("s-shrink", "t2");
    const turn = await runTurn("s-shrink", "t3", true);
    const before = await storedHistory("s-shrink");
    expect(before.map((m) => m.role)).toEqual(["hidden", "user", "assistant"]);

    // As if the worker died after the turn ended but before DBOS marked its workflow done.
    await fixture.replay(turn);
    expect(await storedHistory("s-shrink")).toEqual(before);
    expect(await fixture.worker.client.readHistory("s-shrink")).toEqual(before);
  }, 60_000);

  it("a message the turn stored before the replacement is announced as itself when the replay logs it", async () => {
    await runTurn("s-announce", "t1");
    const turn = await runTurn("s-announce", "t2", true);
    const logged = await fixture.worker.client.readEvents(turn);
    const userDelta = deltas(logged).find((e) => e.payload.messages.some((m) => m.role === "user"))!;
    expect(userTexts(userDelta.payload.messages)).toEqual(["message of t2"]);
    const history = await storedHistory("s-announce");

    // As if the worker died once the replacement was stored but before the log held the user message's
    // announcement and what came after it (the log is written behind the steps).
    await fixture.db.query("DELETE FROM turnkit_durable.events WHERE turn_key = $1 AND seq >= $2", [
      turn.workflowId,
      userDelta.seq,
    ]);
    await fixture.replay(turn);
    const events = await fixture.worker.client.readEvents(turn);
    assertLogInvariants(events);
    expect(events.map((e) => e.type)).toEqual(logged.map((e) => e.type));
    const announced = deltas(events).find((e) => e.seq === userDelta.seq)!;
    expect(announced.payload.messages.map((m) => m.role)).toEqual(["user"]);
    expect(userTexts(announced.payload.messages)).toEqual(["message of t2"]);
    expect(await storedHistory("s-announce")).toEqual(history);
    // The turn's announcements, applied in log order to the history it started from, give the stored history.
    let applied = historyOf(await fixture.worker.client.readEvents({ sessionId: "s-announce", turnId: "t1" }));
    for (const e of events)
      if (e.type === "message.persisted")
        applied =
          e.payload.reason === "replaceMessages" ? [...e.payload.messages] : [...applied, ...e.payload.messages];
    expect(applied).toEqual(history);
  }, 60_000);
});
