/**
 * A compaction in a durable turn: the summary request is made inside the
 * before-LLM hook's step, so a crash after that step does not send it
 * again, and the history it replaced is stored once: a replay does not
 * write the replacement again over the messages appended after it.
 */
import pg from "pg";
import type { AgentMessage } from "@turnkit/agent-loop";
import { describe, expect, it } from "vitest";
import { assertLogInvariants } from "./support/log-assertions.js";
import { useDurableFixture } from "./support/durable-fixture.js";
import { waitFor } from "./support/worker-cluster.js";

const fixture = useDurableFixture();

async function storedHistory(sessionId: string): Promise<AgentMessage[]> {
  const client = new pg.Client({ connectionString: fixture.postgres.url });
  await client.connect();
  try {
    const { rows } = await client.query(
      "SELECT message FROM turnkit_durable.session_messages WHERE session_id = $1 ORDER BY position",
      [sessionId],
    );
    return rows.map((row: { message: AgentMessage }) => row.message);
  } finally {
    await client.end();
  }
}

describe("compaction in a durable turn", () => {
  it("a crash after the summary: not requested again; the replaced history and what followed it stored once, as announced", async () => {
    await fixture.cluster.start("w1", { LEASE_MS: "1500" });
    const turn = await fixture.client.start({
      sessionId: "s-compaction",
      turnId: "compaction",
      userMessage: { text: "write it" },
      // A quick tool call after the compaction, then an answer slow until the kill, fast when sent again.
      metadata: { scenario: "compaction", toolMs: 20, deltas: 80, delayMs: 200, resendDelayMs: 5 },
    });
    const deltas = async () =>
      (await fixture.client.readEvents(turn)).filter((e) => e.type === "stream.resp" && e.payload.chunk.kind === "text")
        .length;
    await waitFor("the final answer streaming", async () => (await deltas()) >= 3);
    const before = await storedHistory("s-compaction");
    expect(before.map((message) => message.role)).toEqual(["hidden", "user", "assistant", "toolResult"]);

    await fixture.cluster.kill("w1");
    await fixture.cluster.start("w1", { LEASE_MS: "1500" });
    expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "completed" });
    const events = await fixture.client.readEvents(turn);
    assertLogInvariants(events);

    // One summary request, whatever the replay did.
    const models = fixture.cluster.counts().filter((c) => c.turnId === "compaction" && c.kind === "model");
    expect(models.filter((c) => c.detail === "summary")).toHaveLength(1);
    // The history: the replacement and the messages after it, those stored before the crash exactly as they were.
    const after = await storedHistory("s-compaction");
    expect(after.map((message) => message.role)).toEqual(["hidden", "user", "assistant", "toolResult", "assistant"]);
    expect(after.slice(0, before.length)).toEqual(before);
    // What the log announced is what the store holds: the tool result announced before the crash is the stored one.
    const announced = events.flatMap((e) =>
      e.type === "message.persisted" && e.payload.reason === "messageDelta" ? e.payload.messages : [],
    );
    const announcedResult = announced.find((message) => message.role === "toolResult") as AgentMessage | undefined;
    expect(after[3]).toMatchObject({ role: "toolResult", timestamp: announcedResult?.timestamp });
  }, 90_000);
});
