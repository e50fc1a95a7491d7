/**
 * A worker shut down cleanly (`shutdown()`, as on a deploy) while it runs
 * turns: each is handed back and goes on in another worker at once, as
 * after a crash, and ends once, as it would have. Before, a step that
 * ended after DBOS was shut down failed with `worker_state`, and DBOS,
 * whose pool was still open, recorded that as the workflow's failure: the
 * turn's `outcome` rejected and no worker ever resumed it.
 */
import { describe, expect, it } from "vitest";
import { useDurableFixture } from "./support/durable-fixture.js";
import { assertLogInvariants } from "./support/log-assertions.js";
import { waitFor } from "./support/worker-cluster.js";

const lease = { LEASE_MS: "20000" };
const fixture = useDurableFixture([{ id: "leaves", env: lease }]);

describe("a worker shut down while it runs turns", () => {
  it("hands them back: each goes on in another worker at once and ends once", async () => {
    const streaming = await fixture.client.start({
      sessionId: "s-streaming",
      turnId: "streaming",
      userMessage: { text: "talk" },
      metadata: { scenario: "stream", deltas: 40, delayMs: 20 },
    });
    const waiting = await fixture.startWaitingForApproval("waiting");
    await waitFor("the stream began", async () => (await fixture.eventsOfType(streaming, "stream.resp")).length > 3);
    await fixture.cluster.terminate("leaves");
    await fixture.cluster.start("stays", lease);
    const [asked] = await fixture.eventsOfType(waiting, "action.required");
    if (asked?.type !== "action.required") throw new Error("no approval request");
    await fixture.client.respond(waiting, asked.payload.requestId, { approved: true });
    // Within a fraction of the 20 s lease: the worker that left handed its turns back.
    const deadline = AbortSignal.timeout(10_000);
    for (const turn of [streaming, waiting]) {
      const outcome = await Promise.race([
        fixture.client.outcome(turn),
        new Promise((resolve) => deadline.addEventListener("abort", () => resolve("not ended"))),
      ]);
      expect(outcome, turn.turnId).toMatchObject({ kind: "completed" });
      assertLogInvariants(await fixture.client.readEvents(turn));
    }
  });
});
