import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { DurableTurnWorker, type DurableTurnWorkerOptions, type DurableTurnRef } from "../../src/index.js";
import { startTestPostgres, type TestPostgres } from "../../src/testing/index.js";
import { waitFor } from "./worker-cluster.js";

/** A worker running in the test's own process, on a database of the test file's own, with a client on it. */
export interface InProcessWorker {
  readonly postgres: TestPostgres;
  readonly worker: DurableTurnWorker;
  /** A plain connection to the same database, for reading and changing tables directly. */
  readonly db: pg.Client;
  /**
   * Runs `turn` again from the top, every step from its record, as after a
   * worker that died once the turn had ended but before DBOS marked its
   * workflow done: the worker is shut down, the workflow set back to
   * pending, a new worker launched; resolves when the replay finished.
   */
  replay(turn: DurableTurnRef): Promise<void>;
}

/**
 * Registers the file's `beforeAll` (a fresh database, a worker launched
 * with `options`, a client) and `afterAll` (all of them stopped), and
 * returns their handles, readable once `beforeAll` ran.
 */
export function useInProcessWorker(options: Omit<DurableTurnWorkerOptions, "databaseUrl">): InProcessWorker {
  let postgres: TestPostgres | undefined;
  let worker: DurableTurnWorker | undefined;
  let db: pg.Client | undefined;
  const launch = () => DurableTurnWorker.launch({ ...options, databaseUrl: postgres!.url });
  beforeAll(async () => {
    postgres = await startTestPostgres();
    worker = await launch();
    db = new pg.Client({ connectionString: postgres.url });
    await db.connect();
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await worker?.shutdown();
    await postgres?.stop();
  }, 60_000);
  return {
    get postgres() {
      return postgres!;
    },
    get worker() {
      return worker!;
    },
    get db() {
      return db!;
    },
    async replay(turn) {
      await worker!.shutdown();
      await db!.query("UPDATE dbos.workflow_status SET status = 'PENDING' WHERE workflow_uuid = $1", [turn.workflowId]);
      worker = await launch();
      await waitFor("the replay finished", async () => {
        const { rows } = await db!.query("SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1", [
          turn.workflowId,
        ]);
        return rows[0]?.status === "SUCCESS";
      });
    },
  };
}
