/*
 * A turn whose model fell back to a model with a `streamFn` of its own
 * (`llm.fallback.models[i].streamFn`): that request is a recorded step like
 * the turn model's, so a replay (as after a crash once the answer came)
 * reads it from its record and never sends it again, and logs the same.
 */
import { createScriptedModel, response } from "@turnkit/agent-core/testing";
import { describe, expect, it } from "vitest";
import type { BuildDurableTurn } from "../src/index.js";
import { useInProcessWorker } from "./support/in-process-worker.js";
import { assertLogInvariants } from "./support/log-assertions.js";

let mainCalls = 0;
let backupCalls = 0;
const backupModel = { ...createScriptedModel([]).model, id: "backup-model" };

const buildTurn: BuildDurableTurn = () => ({
  systemPrompt: "You answer.",
  llm: {
    model: createScriptedModel([]).model,
    streamFn: (model, context, options) => {
      mainCalls++;
      return createScriptedModel([
        response("", { stopReason: "error", errorMessage: "503 Service Unavailable" }),
      ]).streamFn(model, context, options);
    },
    fallback: {
      models: [
        {
          model: backupModel,
          streamFn: (model, context, options) => {
            backupCalls++;
            return createScriptedModel([response("from the backup")]).streamFn(model, context, options);
          },
        },
      ],
    },
  },
  llmRetry: false,
});

const fixture = useInProcessWorker({ workerId: "in-test", concurrency: 1, buildTurn });

describe("a replay of a turn that fell back to another model", () => {
  it("sends neither request again and logs the same events", async () => {
    const turn = await fixture.worker.client.start({
      sessionId: "s-fallback",
      turnId: "t1",
      userMessage: { text: "hi" },
    });
    expect(await fixture.worker.client.outcome(turn)).toMatchObject({ kind: "completed" });
    expect([mainCalls, backupCalls]).toEqual([1, 1]);
    const logged = await fixture.worker.client.readEvents(turn);

    await fixture.replay(turn);
    expect([mainCalls, backupCalls]).toEqual([1, 1]);
    const events = await fixture.worker.client.readEvents(turn);
    assertLogInvariants(events);
    expect(events).toEqual(logged);
  }, 60_000);
});
