/*
 * The database drops every connection of the workers and the client at once
 * (a failover, a restart, an administrator's pg_terminate_backend): nothing
 * crashes, and the turns go on on new connections.
 */
import type { RuntimeEvent } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import type { DurableTurnRef } from "../src/index.js";
import { useDurableFixture } from "./support/durable-fixture.js";
import { assertLogInvariants } from "./support/log-assertions.js";
import { waitFor } from "./support/worker-cluster.js";
import { connectAdmin } from "./support/admin-client.js";

const fixture = useDurableFixture([{ id: "c1" }]);

/** Ends every other connection to the test's database; how many there were. */
async function terminateOtherConnections(): Promise<number> {
  const admin = await connectAdmin(fixture.postgres.url);
  try {
    const { rows } = await admin.query(
      `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    );
    return rows[0].n;
  } finally {
    await admin.end();
  }
}

async function textDeltas(turn: DurableTurnRef): Promise<number> {
  const events = await fixture.client.readEvents(turn);
  return events.filter((e) => e.type === "stream.resp" && e.payload.chunk.kind === "text").length;
}

describe("the database drops every connection", () => {
  it("between turns: the worker and the client keep running, and the next turn completes", async () => {
    const first = await fixture.client.start({ sessionId: "cut", turnId: "t1", userMessage: { text: "hi" } });
    expect(await fixture.client.outcome(first)).toMatchObject({ kind: "completed" });
    expect(await terminateOtherConnections()).toBeGreaterThan(0);
    const second = await fixture.client.start({ sessionId: "cut", turnId: "t2", userMessage: { text: "again" } });
    expect(await fixture.client.outcome(second)).toMatchObject({ kind: "completed" });
    expect(fixture.cluster.running()).toEqual(["c1"]);
  }, 60_000);

  it("while a turn streams: the turn completes, its log numbered without a gap and every delta logged once, and a reader following it gets all of it", async () => {
    const turn = await fixture.client.start({
      sessionId: "cut-mid",
      turnId: "t1",
      userMessage: { text: "talk" },
      metadata: { scenario: "stream", deltas: 60, delayMs: 50 },
    });
    // A reader following the turn from its start: its notification connection is cut too.
    const followed = (async () => {
      const seen: RuntimeEvent[] = [];
      for await (const event of fixture.client.follow(turn)) seen.push(event);
      return seen;
    })();
    await waitFor("ten streamed deltas", async () => (await textDeltas(turn)) >= 10);
    expect(await terminateOtherConnections()).toBeGreaterThan(0);
    expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "completed" });
    const logged = await fixture.client.readEvents(turn);
    assertLogInvariants(logged);
    expect(await textDeltas(turn)).toBe(60);
    expect(await followed).toEqual(logged);
    expect(fixture.cluster.running()).toEqual(["c1"]);
  }, 60_000);
});
