/*
 * Bad input to every call of the client: each is refused at once with a
 * `DurableTurnError` naming the field, before anything is stored, never a
 * Postgres error, a `TypeError`, a follow that waits forever, or a message
 * accepted only to fail the turn that receives it. Before, a steering
 * message with malformed images was accepted and then failed the running
 * turn; `follow` of a turn never started, or after a negative seq, waited
 * forever; ids with a NUL character, a bad `afterSeq` or `limit`, or
 * metadata with a cycle, or a schema or worker id that is no string came
 * back as Postgres errors or `TypeError`s.
 */
import { createScriptedModel, response } from "@turnkit/agent-core/testing";
import { revokedProxy } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { type BuildDurableTurn, DurableTurnClient, DurableTurnError, DurableTurnWorker } from "../src/index.js";
import { useInProcessWorker } from "./support/in-process-worker.js";
import { waitFor } from "./support/worker-cluster.js";

/** Step ends of the `held` turn wait for the test once. */
let releaseHeld: (() => void) | undefined;
const buildTurn: BuildDurableTurn = (request) => ({
  systemPrompt: "You answer.",
  llm: {
    model: createScriptedModel([]).model,
    streamFn: (model, context, options) => createScriptedModel([response("ok")]).streamFn(model, context, options),
  },
  llmRetry: false,
  hooks: {
    onStepEndHook: async () => {
      if (request.turnId !== "held" || releaseHeld) return;
      await new Promise<void>((resolve) => {
        releaseHeld = resolve;
      });
    },
  },
});

const fixture = useInProcessWorker({ workerId: "in-test-input", buildTurn });

/** Expects `call` to reject within a second with a DurableTurnError of `code` whose message matches `names`. */
async function refused(call: () => unknown, code: string, names: RegExp): Promise<void> {
  const settled = await Promise.race([
    (async () => {
      const result = call();
      if (result !== null && typeof result === "object" && Symbol.asyncIterator in result)
        for await (const _ of result as AsyncIterable<unknown>) return "yielded";
      await result;
      return "resolved";
    })().catch((error: unknown) => error),
    new Promise((resolve) => setTimeout(() => resolve("still waiting after 1 s"), 1_000).unref()),
  ]);
  expect(settled, `${call}`).toSatisfy((e) => DurableTurnError.isInstance(e) && e.code === code);
  expect((settled as Error).message, `${call}`).toMatch(names);
}

describe("bad input to the client", () => {
  it("is refused with a typed error naming the field, and nothing is stored", async () => {
    const { client } = fixture.worker;
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const start = (fields: object) => () =>
      client.start({ sessionId: "s-bad", turnId: "t", userMessage: { text: "x" }, ...fields } as never);
    await refused(start({ userMessage: { text: "x", images: "a picture" } }), "invalid_input", /userMessage\.images/);
    await refused(
      start({ userMessage: { text: "x", images: [{ type: "image" }] } }),
      "invalid_input",
      /userMessage\.images\[0\]/,
    );
    await refused(start({ userMessage: { text: "x", batchId: 5 } }), "invalid_input", /userMessage\.batchId/);
    for (const text of ["", " ", "\n\t "])
      await refused(start({ userMessage: { text } }), "invalid_input", /^userMessage\.text is empty/);
    await refused(start({ metadata: cyclic }), "invalid_input", /metadata must be plain JSON/);
    await refused(start({ metadata: { n: 1n } }), "invalid_input", /metadata must be plain JSON/);
    await refused(start({ sessionId: "s\u0000" }), "invalid_input", /sessionId must not contain NUL/);
    await refused(start({ label: "a\u0000" }), "invalid_input", /label must not contain NUL/);
    // Values that cannot be read (a revoked proxy) are refused in words too, never with the engine's text.
    await refused(start({ userMessage: revokedProxy() }), "invalid_input", /^userMessage\.text must be a string/);
    await refused(
      start({ userMessage: { text: "x", images: revokedProxy() } }),
      "invalid_input",
      /userMessage\.images must be an array, got an unreadable value/,
    );
    await refused(start({ metadata: revokedProxy() }), "invalid_input", /metadata must be a plain object/);
    expect(await client.listSessions()).toEqual({ sessions: [] });

    const turn = await client.start({ sessionId: "s-good", turnId: "held", userMessage: { text: "hi" } });
    await waitFor("the held step end", () => releaseHeld !== undefined);
    await refused(
      () => client.steer(turn, { text: "x", images: "a picture" } as never),
      "invalid_input",
      /message\.images/,
    );
    await refused(() => client.steer(turn, { text: "x", batchId: 5 } as never), "invalid_input", /message\.batchId/);
    // A message that says nothing: the turn would leave it out, so it would be neither taken nor handed back.
    for (const text of ["", " ", "\n\t "])
      await refused(() => client.steer(turn, { text }), "invalid_input", /^message\.text is empty/);
    await refused(() => client.respond(turn, undefined as never, { approved: true }), "invalid_input", /requestId/);
    await refused(() => client.respond(turn, "a\u0000", { approved: true }), "invalid_input", /requestId/);
    await refused(() => client.follow({ sessionId: "s-good", turnId: "never" }), "unknown_turn", /never/);
    await refused(() => client.follow(turn, { afterSeq: -5 }), "invalid_input", /afterSeq/);
    await refused(() => client.follow(turn, { afterSeq: 1.5 }), "invalid_input", /afterSeq/);
    await refused(() => client.follow(turn, { afterSeq: "3" as never }), "invalid_input", /afterSeq/);
    await refused(() => client.follow(turn, { signal: "stop" as never }), "invalid_input", /signal/);
    await refused(() => client.follow(turn, null as never), "invalid_input", /options/);
    await refused(() => client.readEvents(turn, { afterSeq: Number.NaN }), "invalid_input", /afterSeq/);
    await refused(() => client.readEvents(turn, { limit: -1 }), "invalid_input", /limit/);
    await refused(() => client.readEvents(turn, null as never), "invalid_input", /options/);
    await refused(() => client.outcome(turn, { pollingIntervalMs: -1 }), "invalid_input", /pollingIntervalMs/);
    await refused(() => client.listSessions(null as never), "invalid_input", /options/);
    await refused(() => client.fork(turn, "s\u0000"), "invalid_input", /intoSessionId must not contain NUL/);

    const { url } = fixture.postgres;
    await refused(() => DurableTurnClient.connect({ databaseUrl: url, schema: 5 as never }), "invalid_input", /schema/);
    await refused(() => DurableTurnClient.connect({ databaseUrl: url, appName: "" }), "invalid_input", /appName/);
    await refused(
      () => DurableTurnWorker.launch({ databaseUrl: url, buildTurn, workerId: 5 as never }),
      "invalid_input",
      /workerId/,
    );

    // The turn took none of it: it ends as it would have, with no steering handed back.
    releaseHeld?.();
    const outcome = await client.outcome(turn);
    expect(outcome).toMatchObject({ kind: "completed" });
    expect(outcome.undeliveredMessages ?? []).toEqual([]);
    expect((await client.listSessions()).sessions.map((s) => s.sessionId)).toEqual(["s-good"]);
  }, 60_000);
});
