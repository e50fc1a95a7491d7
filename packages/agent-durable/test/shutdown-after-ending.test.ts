/*
 * A worker shut down right after a turn's `follow` ended (the README's
 * first example does exactly that) lets the turn record its outcome
 * instead of handing it back. Before, the ending was logged while the
 * workflow still recorded its outcome; the hand-back queued the finished
 * turn again, DBOS refused the execution here its outcome and had it wait
 * for one recorded elsewhere, and logged "The system database has been shut
 * down" once it stopped; the turn then waited in the queue to run again,
 * every step from its record, in whichever worker launched next. Here the
 * outcome's write is slowed (a trigger sleeps 300 ms), so the shutdown
 * always lands inside that window.
 */
import { createScriptedModel, response } from "@turnkit/agent-core/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DurableTurnWorker } from "../src/index.js";
import { startTestPostgres, type TestPostgres } from "../src/testing/index.js";

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

describe("a worker shut down as soon as a turn's follow ended", () => {
  it("lets the turn record its outcome: its workflow is done, not queued again", async () => {
    const worker = await DurableTurnWorker.launch({
      databaseUrl: postgres.url,
      workerId: "ends-then-leaves",
      buildTurn: () => ({
        systemPrompt: "You answer.",
        llm: { model: createScriptedModel([]).model, streamFn: createScriptedModel([response("done")]).streamFn },
        llmRetry: false,
      }),
    });
    let stopped = false;
    try {
      await db.query(`
        CREATE FUNCTION turnkit_durable.slow_outcome() RETURNS trigger AS $$
        BEGIN PERFORM pg_sleep(0.3); RETURN NEW; END $$ LANGUAGE plpgsql;
        CREATE TRIGGER slow_outcome BEFORE UPDATE OF outcome ON turnkit_durable.turns FOR EACH ROW
          WHEN (NEW.outcome IS NOT NULL) EXECUTE FUNCTION turnkit_durable.slow_outcome();`);
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
});
