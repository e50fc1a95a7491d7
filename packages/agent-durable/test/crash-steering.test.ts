/**
 * Steering across a crash at the end of a model request: the request took
 * the waiting messages when it ended, and the worker died before the
 * request's record held them. The request is sent again, and its answer
 * may differ (here it asks for a tool call, which takes no steering): an
 * accepted message is still delivered once or handed back once.
 */
import { describe, expect, it } from "vitest";
import { assertLogInvariants, userTexts } from "./support/log-assertions.js";
import { useDurableFixture } from "./support/durable-fixture.js";
import { waitFor } from "./support/worker-cluster.js";

const fixture = useDurableFixture();

describe("steering taken by a model request whose worker died before its record", () => {
  it("is delivered or handed back once when the request sent again asks for a tool call", async () => {
    await fixture.cluster.start("st1", {
      LEASE_MS: "1500",
      TURNKIT_DURABLE_FAULT: "model-request-after-steering-take",
    });
    const turn = await fixture.client.start({
      sessionId: "s-steer-crash",
      turnId: "steer-crash",
      userMessage: { text: "answer" },
      metadata: { scenario: "answer-then-tool", toolMs: 20 },
    });
    await waitFor("the answer streaming", async () => (await fixture.eventsOfType(turn, "stream.resp")).length >= 2);
    const text = "steer: and check the tests";
    expect(await fixture.client.steer(turn, { text })).toEqual({ accepted: true });
    // The request ends, takes the message, and its worker dies before the request's record is stored.
    expect(await fixture.cluster.exited("st1")).toBe("SIGKILL");
    await fixture.cluster.start("st1", { LEASE_MS: "1500" });
    const outcome = await fixture.client.outcome(turn);
    expect(outcome.kind).toBe("completed");
    assertLogInvariants(await fixture.client.readEvents(turn));
    const history = await fixture.client.readHistory("s-steer-crash");
    const delivered = userTexts(history).filter((t) => t === text).length;
    const handedBack = userTexts(outcome.undeliveredMessages ?? []).filter((t) => t === text).length;
    expect({ delivered, handedBack, sum: delivered + handedBack }).toMatchObject({ sum: 1 });
  }, 120_000);
});
