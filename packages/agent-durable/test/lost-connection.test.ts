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
 */
import { assertRuntimeEventSequence, assertToolCallsAnswered } from "@turnkit/agent-core/testing";
import type { AgentMessage } from "@turnkit/agent-loop";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { INTERRUPTED_TOOL_RESULT_TEXT } from "../src/index.js";
import { useDurableFixture } from "./support/durable-fixture.js";
import { assertLogInvariants } from "./support/log-assertions.js";
import { waitFor } from "./support/worker-cluster.js";

const fixture = useDurableFixture([{ id: "cut-1" }]);

async function connectAdmin(): Promise<pg.Client> {
  const admin = new pg.Client({ connectionString: fixture.postgres.url });
  admin.on("error", () => {});
  await admin.connect();
  return admin;
}

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
    const holder = await connectAdmin();
    const admin = await connectAdmin();
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
});
