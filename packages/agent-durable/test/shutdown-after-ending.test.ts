/*
 * A worker shut down right after a turn's `follow` ended (the README's
 * first example does exactly that) lets the turn record its outcome
 * instead of handing it back. Before, the ending was logged while the
 * workflow still recorded its outcome; the hand-back queued the finished
 * turn again, DBOS refused the execution here its outcome and had it wait
 * for one recorded elsewhere, and logged "The system database has been shut
 * down" once it stopped; the turn then waited in the queue to run again,
 * every step from its record, in whichever worker launched next. Here the
 * outcome's write is slowed (a trigger sleeps), so the shutdown always
 * lands inside that window.
 *
 * While it waits, the worker keeps its presence lock: a launch of the same
 * worker id (a replacement started beside it) that found the lock free
 * took the live worker for gone and queued the turn again, which then ended
 * on the replacement (found by the crash test's clean shutdowns of a
 * twin). Before, the lock was given up as the shutdown began.
 */
import { createScriptedModel, response } from "@turnkit/agent-core/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DurableTurnWorker } from "../src/index.js";
import { startTestPostgres, type TestPostgres } from "../src/testing/index.js";
import { slowOutcomeWrites } from "./support/admin-client.js";

let postgres: TestPostgres;
let db: pg.Client;

beforeAll(async () => {
  postgres = await startTestPostgres();
  db = new pg.Client({ connectionString: postgres.url });
  await db.connect();
}, 60_000);

afterAll(async () => {
  await db?.end();
  await postgres?.stop();
});

/** Launches a worker whose turns answer "done" at once. */
function launchWorker(workerId: string) {
  return DurableTurnWorker.launch({
    databaseUrl: postgres.url,
    workerId,
    buildTurn: () => ({
      systemPrompt: "You answer.",
      llm: { model: createScriptedModel([]).model, streamFn: createScriptedModel([response("done")]).streamFn },
      llmRetry: false,
    }),
  });
}

describe("a worker shut down as soon as a turn's follow ended", () => {
  it("lets the turn record its outcome: its workflow is done, not queued again", async () => {
    const worker = await launchWorker("ends-then-leaves");
    let stopped = false;
    try {
      await slowOutcomeWrites(db, 0.3);
      const turn = await worker.client.start({ sessionId: "s1", turnId: "t1", userMessage: { text: "hi" } });
      const types: string[] = [];
      for await (const event of worker.client.follow(turn)) types.push(event.type);
      expect(types.at(-1)).toBe("session.status");
      await worker.shutdown();
      stopped = true;
      const { rows } = await db.query("SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1", [
        turn.workflowId,
      ]);
      expect(rows.map((row) => row.status)).toEqual(["SUCCESS"]);
      const outcome = await db.query(
        "SELECT outcome->>'kind' AS kind FROM turnkit_durable.turns WHERE session_id = 's1' AND turn_id = 't1'",
      );
      expect(outcome.rows).toEqual([{ kind: "completed" }]);
    } finally {
      if (!stopped) await worker.shutdown();
    }
  });

  it("keeps its presence lock while the turn records its outcome: a launch of its id looking then leaves the turn to it", async () => {
    const worker = await launchWorker("ends-then-leaves-2");
    let stopped = false;
    try {
      await slowOutcomeWrites(db, 1);
      const turn = await worker.client.start({ sessionId: "s2", turnId: "t1", userMessage: { text: "hi" } });
      for await (const event of worker.client.follow(turn)) void event;
      const status = () =>
        db.query("SELECT status, executor_id FROM dbos.workflow_status WHERE workflow_uuid = $1", [turn.workflowId]);
      const { executor_id: launch } = (await status()).rows[0];
      // What a launch of the same worker id looks at: whether this launch's presence lock is free.
      const lockFree = async () => {
        await db.query("BEGIN");
        try {
          const { rows } = await db.query(
            "SELECT pg_try_advisory_xact_lock(hashtext('turnkit-durable-launch'), hashtext($1)) AS free",
            [launch],
          );
          return rows[0].free as boolean;
        } finally {
          await db.query("ROLLBACK");
        }
      };
      const shuttingDown = worker.shutdown();
      let looks = 0;
      while ((await status()).rows[0].status === "PENDING") {
        expect(await lockFree(), "the presence lock of a worker still recording a turn's outcome").toBe(false);
        looks++;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await shuttingDown;
      stopped = true;
      expect(looks).toBeGreaterThan(0);
      expect((await status()).rows[0]).toEqual({ status: "SUCCESS", executor_id: launch });
      // Once it has left, the lock is free.
      expect(await lockFree()).toBe(true);
    } finally {
      if (!stopped) await worker.shutdown();
    }
  });
});
