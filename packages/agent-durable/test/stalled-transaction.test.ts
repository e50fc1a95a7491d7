/*
 * A worker frozen in the middle of a transaction of a turn (its process
 * stopped, or its network gone, while the transaction holds the turn's
 * rows locked) does not keep the turn from the worker that takes it over:
 * the server ends that session once it sat in its transaction for the
 * worker's `queryTimeoutMs`, which frees the rows. Before, the takeover
 * skipped the locked turn at every look, for as long as the frozen process
 * lived, and the turn (and the host's `steer` and `abort` of it) waited.
 * A worker that wakes up after the server ended its session finds it gone
 * and hands the turn back, as on any lost connection.
 */
import { writeFileSync } from "node:fs";
import { assertRuntimeEventSequence, assertToolCallsAnswered } from "@turnkit/agent-core/testing";
import type { AgentMessage } from "@turnkit/agent-loop";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { useDurableFixture } from "./support/durable-fixture.js";
import { assertLogInvariants, userTexts } from "./support/log-assertions.js";
import { waitFor } from "./support/worker-cluster.js";
import { connectAdmin } from "./support/admin-client.js";

const fixture = useDurableFixture();
const SETTINGS = { LEASE_MS: "1500", QUERY_TIMEOUT_MS: "1500" };

/**
 * The pid of worker `workerId`'s backend that sits in a transaction, once
 * one has for half a second (no transaction of a running worker is idle
 * that long: the worker stopped at its stall point).
 */
async function frozenBackend(admin: pg.Client, workerId: string): Promise<number> {
  let pid: number | undefined;
  await waitFor(`worker ${workerId} frozen in a transaction`, async () => {
    const { rows } = await admin.query(
      `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND state = 'idle in transaction'
         AND state_change < now() - interval '500 milliseconds'`,
      [`turnkit-worker ${workerId}`],
    );
    pid = rows[0]?.pid;
    return pid !== undefined;
  });
  return pid!;
}

describe("a worker frozen in the middle of a turn's transaction", () => {
  it("loses the turn to another worker once its session sat idle in the transaction for queryTimeoutMs", async () => {
    // Only the armed worker runs when the turn starts: it freezes when the tool call's step takes the steering.
    await fixture.cluster.start("freezes", { ...SETTINGS, TURNKIT_DURABLE_FAULT: "steering-take-in-transaction" });
    const turn = await fixture.client.start({
      sessionId: "s-frozen-tx",
      turnId: "frozen-tx",
      userMessage: { text: "write it" },
      // Its call runs until the message is steered in, so the step after it has the message to take.
      metadata: { scenario: "tool", toolUntil: "frozen-tx-call-ends" },
    });
    await waitFor("the tool call started", async () => fixture.countsOf(turn, "tool-start") === 1);
    // The worker that takes the turn over launches meanwhile: the turn is the armed worker's while it beats.
    const takingOver = fixture.cluster.start("takes-over", SETTINGS);
    expect(await fixture.client.steer(turn, { text: "steer: and the tests" })).toEqual({ accepted: true });
    writeFileSync(`${fixture.cluster.countFile}.frozen-tx-call-ends`, "");
    const admin = await connectAdmin(fixture.postgres.url);
    try {
      await frozenBackend(admin, "freezes");
    } finally {
      await admin.end();
    }

    await takingOver;
    const outcome = await Promise.race([
      fixture.client.outcome(turn),
      new Promise((resolve) => setTimeout(() => resolve("still waiting after 20 s"), 20_000)),
    ]);
    expect(outcome).toMatchObject({ kind: "completed" });
    // The frozen worker's take never committed: the next owner takes the message, and it reaches the history once.
    const history = (await fixture.client.readHistory("s-frozen-tx")) as AgentMessage[];
    assertToolCallsAnswered(history);
    expect(userTexts(history).filter((text) => text === "steer: and the tests")).toHaveLength(1);
    const events = await fixture.client.readEvents(turn);
    assertLogInvariants(events);
    assertRuntimeEventSequence(events);
    expect(fixture.countsOf(turn, "tool-start")).toBe(1);
    await fixture.cluster.stopWorkers();
  }, 60_000);

  it("that wakes up after the server ended its session hands the turn back, and the turn completes", async () => {
    // A lease longer than the frozen time: no other worker takes the turn over, the woken worker finds its session gone.
    const settings = { LEASE_MS: "20000", QUERY_TIMEOUT_MS: "1500" };
    await fixture.cluster.start("wakes", { ...settings, TURNKIT_DURABLE_FAULT: "steering-take-in-transaction" });
    const turn = await fixture.client.start({
      sessionId: "s-woken-tx",
      turnId: "woken-tx",
      userMessage: { text: "write it" },
      metadata: { scenario: "tool", toolUntil: "woken-tx-call-ends" },
    });
    await waitFor("the tool call started", async () => fixture.countsOf(turn, "tool-start") === 1);
    expect(await fixture.client.steer(turn, { text: "steer: and the docs" })).toEqual({ accepted: true });
    writeFileSync(`${fixture.cluster.countFile}.woken-tx-call-ends`, "");
    const admin = await connectAdmin(fixture.postgres.url);
    try {
      const frozen = await frozenBackend(admin, "wakes");
      await waitFor("the server ended the frozen session", async () => {
        const { rows } = await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [frozen]);
        return rows.length === 0;
      });
    } finally {
      await admin.end();
    }
    // The turn, handed back, runs again here (the stall point stops a worker once).
    fixture.cluster.resume("wakes");

    const outcome = await Promise.race([
      fixture.client.outcome(turn),
      new Promise((resolve) => setTimeout(() => resolve("still waiting after 20 s"), 20_000)),
    ]);
    expect(outcome).toMatchObject({ kind: "completed" });
    const history = (await fixture.client.readHistory("s-woken-tx")) as AgentMessage[];
    assertToolCallsAnswered(history);
    expect(userTexts(history).filter((text) => text === "steer: and the docs")).toHaveLength(1);
    const events = await fixture.client.readEvents(turn);
    assertLogInvariants(events);
    assertRuntimeEventSequence(events);
    expect(fixture.countsOf(turn, "tool-start")).toBe(1);
    await fixture.cluster.stopWorkers();
  }, 60_000);
});
