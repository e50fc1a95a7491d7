/*
 * Connections that die without a word while idle in a worker's pools (the
 * network dropped their packets; the server and new connections are fine)
 * cost the next turn one statement's timeout: the first statement on one
 * waits `queryTimeoutMs`, is given up and hands the turn back, and by then
 * every other connection idle since the loss has been closed (the pools
 * keep a connection idle no longer than a statement may take). Before, the
 * pools kept them for pg-pool's 10 s: the turn's next executions found them
 * one by one, each after its own timeout (here 11.1 s in 7 executions;
 * 1.9 s in 2 now). A client's pools likewise: one call fails on a dead
 * connection, not one per connection (3 and more before).
 */
import { describe, expect, it } from "vitest";
import { DurableTurnClient, DurableTurnError } from "../src/index.js";
import { connectAdmin } from "./support/admin-client.js";
import { useDurableFixture } from "./support/durable-fixture.js";
import { proxiedDatabase } from "./support/freezing-proxy.js";
import { assertLogInvariants } from "./support/log-assertions.js";

const fixture = useDurableFixture();
const QUERY_TIMEOUT_MS = 1_500;

describe("connections that died idle in a worker's pools", () => {
  it("cost the next turn one statement's timeout: it is handed back once or twice, not once per dead connection", async () => {
    const { proxy, url } = await proxiedDatabase(fixture.postgres.url);
    const workerId = "dead-idle";
    const admin = await connectAdmin(fixture.postgres.url);
    try {
      await fixture.cluster.start(workerId, { DATABASE_URL: url, QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS) });
      const run = async (turnId: string) => {
        const turn = await fixture.client.start({
          sessionId: `s-${turnId}`,
          turnId,
          userMessage: { text: "write it" },
          metadata: { scenario: "tool", toolMs: 100 },
        });
        return { turn, outcome: fixture.client.outcome(turn) };
      };
      // Turns at once leave several connections idle in each of the worker's pools.
      const warm = await Promise.all([1, 2, 3, 4].map((n) => run(`warm-${n}`)));
      for (const { outcome } of warm) expect(await outcome).toMatchObject({ kind: "completed" });
      // Every connection of the worker's turns dies without a word; the heartbeat's and DBOS's pass, as new ones do.
      const { rows } = await admin.query(
        `SELECT client_port FROM pg_stat_activity
         WHERE application_name = $1 AND position('heartbeat_at' in query) = 0`,
        [`turnkit-worker ${workerId}`],
      );
      expect(rows.length).toBeGreaterThan(3);
      proxy.freezeConnections(new Set(rows.map((row: { client_port: number }) => row.client_port)));
      const startedAt = performance.now();
      const { turn, outcome } = await run("after-the-loss");
      // Each execution of the turn claims it under a token of its own: a hand-back, and the next one, a new token.
      const executions = new Set<string>();
      let ended = false;
      const ending = outcome.finally(() => {
        ended = true;
      });
      while (!ended) {
        const { rows: now } = await admin.query("SELECT owner_xid FROM dbos.workflow_status WHERE workflow_uuid = $1", [
          turn.workflowId,
        ]);
        if (now[0]?.owner_xid) executions.add(String(now[0].owner_xid));
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(await ending).toMatchObject({ kind: "completed" });
      console.log(
        `the turn after the loss ended in ${Math.round(performance.now() - startedAt)} ms, in ${executions.size} executions (${rows.length} connections died)`,
      );
      expect(executions.size).toBeLessThanOrEqual(3);
      assertLogInvariants(await fixture.client.readEvents(turn));
      expect(fixture.countsOf(turn, "tool-start")).toBe(1);
    } finally {
      await admin.end();
      await fixture.cluster.stopWorkers();
      await proxy.close();
    }
  }, 60_000);

  it("cost a client's next call one statement's timeout, not one call failed per dead connection", async () => {
    const { proxy, url } = await proxiedDatabase(fixture.postgres.url);
    const client = await DurableTurnClient.connect({ databaseUrl: url, queryTimeoutMs: QUERY_TIMEOUT_MS });
    const admin = await connectAdmin(fixture.postgres.url);
    try {
      // Calls at once leave each of the client's connections idle.
      await Promise.all([1, 2, 3, 4, 5].map(() => client.listSessions()));
      const { rows } = await admin.query("SELECT client_port FROM pg_stat_activity WHERE client_port IS NOT NULL");
      proxy.freezeConnections(new Set(rows.map((row: { client_port: number }) => row.client_port)));
      // Each call that takes a dead connection fails after the statement's timeout; before, the next calls took the
      // other dead ones, one by one.
      let failed = 0;
      for (;;) {
        const answer = await client.listSessions().then(
          () => "listed",
          (error: unknown) => error,
        );
        if (answer === "listed") {
          console.log(`${failed} client call(s) failed on dead connections`);
          break;
        }
        expect(DurableTurnError.isInstance(answer) && answer.code).toBe("database_unavailable");
        failed++;
        expect(failed, "calls that failed on dead connections").toBeLessThanOrEqual(2);
      }
    } finally {
      await admin.end();
      await client.close();
      await proxy.close();
    }
  }, 60_000);
});
