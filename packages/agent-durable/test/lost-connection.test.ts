/*
 * The server ends a worker's connection under one of a turn's statements
 * that nothing sends again (a failover, a restart, an administrator's
 * pg_terminate_backend, a reset): the turn is handed back and goes on from
 * its records, as after a crash at that point. It is never failed by it,
 * and its workflow never ends without an outcome.
 *
 * To cut the connection under one exact statement, the test holds the
 * turn's workflow row locked: the statement that records the step waits
 * for the lock, and the test ends that statement's connection.
 *
 * The writers of the log and the history try a failed write again on
 * their own; when they give up at the turn's end (the database away for
 * longer than their retries), the turn is handed back too, instead of its
 * workflow failing with `log_write` and its log left without an ending.
 *
 * A connection that dies without a word (its packets dropped: a proxy
 * between the worker and its database stops passing them) fails its
 * statement after the worker's `queryTimeoutMs`, and the turn is handed
 * back the same way, though the worker's heartbeats, on a connection of
 * their own, keep its lease (before, the turn waited on it for ever).
 */
import { assertRuntimeEventSequence, assertToolCallsAnswered } from "@turnkit/agent-core/testing";
import type { AgentMessage } from "@turnkit/agent-loop";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { INTERRUPTED_TOOL_RESULT_TEXT } from "../src/index.js";
import { useDurableFixture } from "./support/durable-fixture.js";
import { proxiedDatabase } from "./support/freezing-proxy.js";
import { assertLogInvariants } from "./support/log-assertions.js";
import { waitFor } from "./support/worker-cluster.js";
import { connectAdmin } from "./support/admin-client.js";

const fixture = useDurableFixture([{ id: "cut-1" }]);

/** The pid of the worker's backend waiting for a lock in a statement whose text contains `text`, once there is one. */
async function waitingBackend(admin: pg.Client, text: string): Promise<number> {
  let pid: number | undefined;
  await waitFor(`a worker statement on ${text} waiting for the lock`, async () => {
    const { rows } = await admin.query(
      `SELECT pid FROM pg_stat_activity
       WHERE datname = current_database() AND application_name LIKE 'turnkit-worker%'
         AND wait_event_type = 'Lock' AND position($1 in query) > 0`,
      [text],
    );
    pid = rows[0]?.pid;
    return pid !== undefined;
  });
  return pid!;
}

/**
 * Resolves once `done` holds, polling the server; rejects naming `label` once worker `workerId` wrote a heartbeat a
 * whole lease (`leaseMs`) after this call, on the server's clock, first. A turn that waits on a dead connection waits
 * while those heartbeats keep its lease: a lease of them is what the turn's wait is measured in, so the bound holds
 * on a loaded machine, where the worker's heartbeats come late as its query timeouts do.
 */
async function withinLeaseOfHeartbeats(
  admin: pg.Client,
  workerId: string,
  leaseMs: number,
  label: string,
  done: () => Promise<boolean>,
): Promise<void> {
  const { rows } = await admin.query("SELECT now() + make_interval(secs => $1) AS until", [leaseMs / 1000]);
  for (;;) {
    if (await done()) return;
    const { rows: beats } = await admin.query(
      "SELECT 1 FROM turnkit_durable.workers WHERE executor_id LIKE $1 AND heartbeat_at > $2",
      [`${workerId}#%`, rows[0].until],
    );
    if (beats.length > 0) throw new Error(`the worker's heartbeats kept its lease a whole lease, still ${label}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("a worker connection the server ends under a turn's statement", () => {
  it("while it records a finished tool call: the turn is handed back, completes, and the call ran once", async () => {
    const turn = await fixture.client.start({
      sessionId: "s-cut-record",
      turnId: "cut-record",
      userMessage: { text: "write it" },
      metadata: { scenario: "tool", toolMs: 800 },
    });
    await waitFor("the tool call started", async () => fixture.countsOf(turn, "tool-start") === 1);
    // Hold the turn's workflow row: the call's record (a claimed write) waits for it when the call ends.
    const holder = await connectAdmin(fixture.postgres.url);
    const admin = await connectAdmin(fixture.postgres.url);
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT 1 FROM dbos.workflow_status WHERE workflow_uuid = $1 FOR UPDATE", [turn.workflowId]);
      const pid = await waitingBackend(admin, "operation_outputs");
      await admin.query("SELECT pg_terminate_backend($1)", [pid]);
      // The worker finds the row locked when it queues the turn again, and tries again until it is free.
      await new Promise((resolve) => setTimeout(resolve, 500));
      await holder.query("COMMIT");
    } finally {
      await holder.end();
      await admin.end();
    }

    // Every promise of a crash at that point holds: the turn completes (not failed), the `never` call is not run
    // again but answered as interrupted (its record was never stored), the log is whole and valid.
    expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "completed" });
    expect(fixture.countsOf(turn, "tool-start")).toBe(1);
    const events = await fixture.client.readEvents(turn);
    assertLogInvariants(events);
    assertRuntimeEventSequence(events);
    const history = (await fixture.client.readHistory("s-cut-record")) as AgentMessage[];
    assertToolCallsAnswered(history);
    const result = history.find((m) => m.role === "toolResult");
    expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: INTERRUPTED_TOOL_RESULT_TEXT }] });
    expect(fixture.cluster.running()).toEqual(["cut-1"]);
  }, 60_000);

  it("under the terminal status the log writer tries again and gives up: the turn is handed back and ends once", async () => {
    const turn = await fixture.client.start({
      sessionId: "s-cut-ending",
      turnId: "cut-ending",
      userMessage: { text: "write it" },
      metadata: { scenario: "tool", toolMs: 800 },
    });
    await waitFor("the tool call started", async () => fixture.countsOf(turn, "tool-start") === 1);
    // An ending of the turn that the test has not committed: the log's one-ending index makes the worker's terminal
    // status wait for it, so the test can end that write's connection, again at each of the writer's attempts.
    const holder = await connectAdmin(fixture.postgres.url);
    const admin = await connectAdmin(fixture.postgres.url);
    try {
      await holder.query("BEGIN");
      await holder.query(
        `INSERT INTO turnkit_durable.events (turn_key, seq, type, event)
         VALUES ($1, 1000000, 'session.status', '{"payload": {"status": "failed"}}')`,
        [turn.workflowId],
      );
      // Every attempt of the writer is cut (five as the terminal status is pushed, five more when the turn's end
      // waits for the log), until this execution gives the turn up: handed back (its claim revoked), or, before,
      // failed with log_write.
      const execution = await admin.query("SELECT owner_xid FROM dbos.workflow_status WHERE workflow_uuid = $1", [
        turn.workflowId,
      ]);
      for (;;) {
        const { rows } = await admin.query(
          `SELECT (owner_xid IS DISTINCT FROM $2 OR status <> 'PENDING') AS over,
             (SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'turnkit-worker%'
              AND wait_event_type = 'Lock' AND position('events' in query) > 0 LIMIT 1) AS pid
           FROM dbos.workflow_status WHERE workflow_uuid = $1`,
          [turn.workflowId, execution.rows[0].owner_xid],
        );
        if (rows[0].over) break;
        if (rows[0].pid !== null) await admin.query("SELECT pg_terminate_backend($1)", [rows[0].pid]);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      await holder.query("ROLLBACK");
    } finally {
      await holder.end();
      await admin.end();
    }
    expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "completed" });
    const events = await fixture.client.readEvents(turn);
    assertLogInvariants(events);
    assertRuntimeEventSequence(events);
    expect(fixture.countsOf(turn, "tool-start")).toBe(1);
  }, 60_000);

  it("that dies without a word while a tool call runs: the turn is handed back after queryTimeoutMs and completes", async () => {
    await fixture.cluster.stopWorkers();
    const { proxy, url } = await proxiedDatabase(fixture.postgres.url);
    const workerId = "cut-silent";
    const leaseMs = 15_000;
    const admin = await connectAdmin(fixture.postgres.url);
    try {
      await fixture.cluster.start(workerId, { DATABASE_URL: url, QUERY_TIMEOUT_MS: "1500", LEASE_MS: String(leaseMs) });
      const turn = await fixture.client.start({
        sessionId: "s-cut-silent",
        turnId: "cut-silent",
        userMessage: { text: "write it" },
        metadata: { scenario: "tool", toolMs: 1000 },
      });
      await waitFor("the tool call started", async () => fixture.countsOf(turn, "tool-start") === 1);
      // Every connection of the worker's turns goes dead; the heartbeat's and DBOS's pass, as new connections do.
      const { rows } = await admin.query(
        `SELECT client_port FROM pg_stat_activity
         WHERE application_name = $1 AND position('heartbeat_at' in query) = 0`,
        [`turnkit-worker ${workerId}`],
      );
      proxy.freezeConnections(new Set(rows.map((row: { client_port: number }) => row.client_port)));
      const frozen = await admin.query("SELECT owner_xid FROM dbos.workflow_status WHERE workflow_uuid = $1", [
        turn.workflowId,
      ]);
      // The call's record waits on a dead connection (the call ends after 1 s) and is given up after 1.5 s; the
      // replay may find more dead connections in the pools, each given up so. Before, the turn waited for ever.
      // Measured in the worker's heartbeats on the server's clock, not in the test's time (see the helper).
      await withinLeaseOfHeartbeats(admin, workerId, leaseMs, "not handed back", async () => {
        const now = await admin.query("SELECT owner_xid FROM dbos.workflow_status WHERE workflow_uuid = $1", [
          turn.workflowId,
        ]);
        return now.rows[0].owner_xid !== frozen.rows[0].owner_xid;
      });
      await withinLeaseOfHeartbeats(admin, workerId, leaseMs, "handed back but not ended", async () => {
        const now = await admin.query("SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1", [
          turn.workflowId,
        ]);
        return !["PENDING", "ENQUEUED"].includes(now.rows[0].status);
      });
      expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "completed" });
      expect(fixture.countsOf(turn, "tool-start")).toBe(1);
      const events = await fixture.client.readEvents(turn);
      assertLogInvariants(events);
      assertRuntimeEventSequence(events);
      assertToolCallsAnswered((await fixture.client.readHistory("s-cut-silent")) as AgentMessage[]);
    } finally {
      await admin.end();
      await fixture.cluster.stopWorkers();
      await proxy.close();
    }
  }, 60_000);

  it("that held the worker's presence lock: the worker takes it again at once, and a launch of its id leaves it its turns", async () => {
    await fixture.cluster.stopWorkers();
    // A long lease: the worker's next heartbeat, which took the lock again before, comes a quarter lease (10 s)
    // after the one at its launch, well after the launch of its id below.
    const lease = { LEASE_MS: "40000" };
    await fixture.cluster.start("present", lease);
    const turn = await fixture.startWaitingForApproval("cut-presence");
    const admin = await connectAdmin(fixture.postgres.url);
    try {
      const before = await admin.query(
        "SELECT executor_id, owner_xid FROM dbos.workflow_status WHERE workflow_uuid = $1",
        [turn.workflowId],
      );
      const { rows: ended } = await admin.query(
        `SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE application_name = 'turnkit-worker present' AND position('pg_try_advisory_lock' in query) > 0`,
      );
      expect(ended.length).toBe(1);
      // Taken again at once: before, only at the next heartbeat, a quarter lease (10 s) later. A launch of the same
      // id in the moment between (a window of milliseconds) takes the live launch for gone; this test launches
      // the replacement after it, which the next statements make sure of.
      await waitFor(
        "the presence lock taken again",
        async () => {
          const { rows } = await admin.query(
            `SELECT 1 FROM pg_locks lock JOIN pg_stat_activity session ON session.pid = lock.pid
             WHERE lock.locktype = 'advisory' AND lock.granted AND session.application_name = 'turnkit-worker present'
               AND session.pid <> $1`,
            [ended[0].pid],
          );
          return rows.length === 1;
        },
        5_000,
      );
      // The same worker id launched again (a replacement started while this process lives on) looks for earlier
      // launches whose presence lock is free, and takes their turns over at once.
      fixture.cluster.detach("present");
      await fixture.cluster.start("present", lease);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const after = await admin.query(
        "SELECT executor_id, owner_xid FROM dbos.workflow_status WHERE workflow_uuid = $1",
        [turn.workflowId],
      );
      expect(after.rows[0]).toEqual(before.rows[0]);
    } finally {
      await admin.end();
      await fixture.cluster.stopWorkers();
    }
  }, 60_000);
});
