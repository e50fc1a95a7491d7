/*
 * What a durable turn's setup and tools tell or ask the host, with the worker
 * in the test process (its buildTurn is a closure here): the setup's
 * warnings, logged once and the same on a replay.
 */
import { DBOSClient } from "@dbos-inc/dbos-sdk";
import { createScriptedModel } from "@turnkit/agent-core/testing";
import type { RuntimeWarningPayload } from "@turnkit/protocol";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuildDurableTurn, DurableTurnWorker, type DurableTurnWorkerOptions } from "../src/index.js";
import { startTestPostgres, type TestPostgres } from "../src/testing/index.js";
import { assertLogInvariants } from "./support/log-assertions.js";
import { waitFor } from "./support/worker-cluster.js";

const WORKER_ID = "in-test-asks";

/** The warnings `buildTurn` finds for a turn, by turn id (a test changes them between executions). */
const setupWarnings = new Map<string, RuntimeWarningPayload[]>();

const buildTurn: BuildDurableTurn = (request) => {
  const model = createScriptedModel([]);
  return {
    systemPrompt: "You are a test assistant.",
    llm: {
      model: model.model,
      streamFn: (m, context, options) => createScriptedModel(["ok"]).streamFn(m, context, options),
    },
    llmRetry: false,
    warnings: setupWarnings.get(request.turnId),
  };
};

let postgres: TestPostgres;
let worker: DurableTurnWorker;
let db: pg.Client;
const options = (): DurableTurnWorkerOptions => ({
  databaseUrl: postgres.url,
  workerId: WORKER_ID,
  concurrency: 4,
  buildTurn,
});

beforeAll(async () => {
  postgres = await startTestPostgres();
  worker = await DurableTurnWorker.launch(options());
  db = new pg.Client({ connectionString: postgres.url });
  await db.connect();
}, 120_000);

afterAll(async () => {
  await db?.end();
  await worker?.shutdown();
  await postgres?.stop();
}, 60_000);

describe("the setup's warnings", () => {
  it("are logged right after the first status, in order; a replay logs the ones the first execution found", async () => {
    const found: RuntimeWarningPayload[] = [
      { code: "extension_degraded", message: "docs is down", extensionId: "mcp:docs", tools: ["docs_search"] },
      { code: "extension_degraded", message: "search is down", extensionId: "mcp:search", tools: [] },
    ];
    setupWarnings.set("warned", found);
    const turn = await worker.client.start({ sessionId: "s-warned", turnId: "warned", userMessage: { text: "hi" } });
    expect(await worker.client.outcome(turn)).toMatchObject({ kind: "completed" });
    const before = await worker.client.readEvents(turn);
    assertLogInvariants(before);
    expect(before.slice(0, 3).map((e) => [e.type, e.payload])).toEqual([
      ["session.status", { status: "running" }],
      ["runtime.warning", found[0]],
      ["runtime.warning", found[1]],
    ]);

    // Run again from the top, as after a crash once the turn ended: buildTurn now finds one warning only.
    setupWarnings.set("warned", [found[1]!]);
    await worker.shutdown();
    await db.query("UPDATE dbos.workflow_status SET status = 'PENDING' WHERE workflow_uuid = $1", [turn.workflowId]);
    worker = await DurableTurnWorker.launch(options());
    await waitFor("the replay finished", async () => {
      const { rows } = await db.query("SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1", [
        turn.workflowId,
      ]);
      return rows[0]?.status === "SUCCESS";
    });
    expect(await worker.client.readEvents(turn)).toEqual(before);
    // The replay took the recorded warnings (two), not the ones its buildTurn found, so it numbered as the first did.
    const dbos = await DBOSClient.create({ systemDatabaseUrl: postgres.url });
    try {
      const steps = (await dbos.listWorkflowSteps(turn.workflowId)) ?? [];
      expect(steps.filter((step) => step.name === "turnkit.setup-warnings").map((step) => step.output)).toEqual([
        found,
      ]);
    } finally {
      await dbos.destroy();
    }
  }, 90_000);
});
