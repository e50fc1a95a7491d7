import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RuntimeEvent } from "@turnkit/protocol";
import { afterAll, beforeAll } from "vitest";
import { DurableTurnClient, type DurableTurnRef } from "../../src/index.js";
import { startTestPostgres, type TestPostgres } from "../../src/testing/index.js";
import type { CountRecord } from "./scenario-turns.js";
import { WorkerCluster, waitFor } from "./worker-cluster.js";

/** What a test file shares: one Postgres, a client in the test process, its worker processes. */
export interface DurableFixture {
  readonly postgres: TestPostgres;
  readonly client: DurableTurnClient;
  readonly cluster: WorkerCluster;
  /** How often the workers recorded `kind` for `turn` (model requests, tool starts and ends). */
  countsOf(turn: DurableTurnRef, kind: CountRecord["kind"]): number;
  /** The turn's logged events of one type. */
  eventsOfType(turn: DurableTurnRef, type: RuntimeEvent["type"]): Promise<RuntimeEvent[]>;
  /**
   * Starts turn `turnId` (session `s-<turnId>`, "write it") of the `approval`
   * scenario, with `metadata` on top, and resolves once its approval request
   * is logged (within `timeoutMs`, the default of `waitFor` if not given).
   */
  startWaitingForApproval(
    turnId: string,
    metadata?: Record<string, unknown>,
    timeoutMs?: number,
  ): Promise<DurableTurnRef>;
  /**
   * A deployment of its own in the file's database, named `name` (its
   * application version, schema and queue): a client on it (closed with
   * the fixture), and the environment that starts a worker of it. Workers
   * of two deployments never take, recover or queue again each other's
   * turns, so tests on their own deployments may run at once.
   */
  deployment(name: string): Promise<{ client: DurableTurnClient; env: Record<string, string> }>;
}

/**
 * Registers `beforeAll`/`afterAll` that start one Postgres for the file (and
 * `workers`, if any) and stop everything at the end, worker processes first.
 */
export function useDurableFixture(workers: { id: string; env?: Record<string, string> }[] = []): DurableFixture {
  let postgres: TestPostgres | undefined;
  let client: DurableTurnClient | undefined;
  let cluster: WorkerCluster | undefined;
  let scratch: string | undefined;
  const deploymentClients: DurableTurnClient[] = [];
  beforeAll(async () => {
    postgres = await startTestPostgres();
    client = await DurableTurnClient.connect({ databaseUrl: postgres.url });
    scratch = mkdtempSync(join(tmpdir(), "turnkit-durable-"));
    cluster = new WorkerCluster(postgres.url, join(scratch, "counts.jsonl"));
    await Promise.all(workers.map((worker) => cluster!.start(worker.id, worker.env)));
  }, 120_000);
  afterAll(async () => {
    await cluster?.stopWorkers();
    await Promise.all(deploymentClients.map((each) => each.close()));
    await client?.close();
    await postgres?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }, 60_000);
  const fixture: DurableFixture = {
    get postgres() {
      return postgres!;
    },
    get client() {
      return client!;
    },
    get cluster() {
      return cluster!;
    },
    countsOf: (turn, kind) =>
      cluster!.counts().filter((c) => c.turnId === turn.turnId && c.sessionId === turn.sessionId && c.kind === kind)
        .length,
    eventsOfType: async (turn, type) => (await client!.readEvents(turn)).filter((e) => e.type === type),
    startWaitingForApproval: async (turnId, metadata = {}, timeoutMs) => {
      const turn = await client!.start({
        sessionId: `s-${turnId}`,
        turnId,
        userMessage: { text: "write it" },
        metadata: { scenario: "approval", ...metadata },
      });
      await waitFor(
        "the approval request",
        async () => (await fixture.eventsOfType(turn, "action.required")).length === 1,
        timeoutMs,
      );
      return turn;
    },
    deployment: async (name) => {
      const names = {
        appVersion: `test-${name}`,
        schema: `test_${name.replaceAll("-", "_")}`,
        queueName: `test-${name}`,
      };
      const deployed = await DurableTurnClient.connect({ databaseUrl: postgres!.url, ...names });
      deploymentClients.push(deployed);
      return {
        client: deployed,
        env: { APP_VERSION: names.appVersion, SCHEMA: names.schema, QUEUE_NAME: names.queueName },
      };
    },
  };
  return fixture;
}
