/**
 * A crash right after a streaming model request was stopped by the turn's
 * abort and recorded so: the recovery replays the request from its record
 * (the streamed events, then the abort) and must log what the first
 * execution would have, after what it logged: one terminal status, last,
 * and every stored message announced.
 */
import { isTerminalEvent } from "@turnkit/protocol";
import { describe, expect, it } from "vitest";
import { assertLogInvariants } from "./support/log-assertions.js";
import { useDurableFixture } from "./support/durable-fixture.js";
import { waitFor } from "./support/worker-cluster.js";

const fixture = useDurableFixture();

describe("a crash once an aborted model request is recorded", () => {
  it("the replay logs the rest of the turn after the streamed events: one ending, every stored message announced", async () => {
    await fixture.cluster.start("ab1", { LEASE_MS: "1500", TURNKIT_DURABLE_FAULT: "model-request-aborted-recorded" });
    const turn = await fixture.client.start({
      sessionId: "s-abort-replay",
      turnId: "abort-replay",
      userMessage: { text: "talk" },
      metadata: { scenario: "stream", deltas: 200, delayMs: 20 },
    });
    await waitFor("ten streamed deltas", async () => (await fixture.eventsOfType(turn, "stream.resp")).length >= 10);
    await fixture.client.abort(turn);
    // The request stops, its record is stored, and the worker dies before the runner hears of the abort.
    expect(await fixture.cluster.exited("ab1")).toBe("SIGKILL");
    await fixture.cluster.start("ab1", { LEASE_MS: "1500" });
    expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "aborted" });
    const events = await fixture.client.readEvents(turn);
    assertLogInvariants(events);
    expect(isTerminalEvent(events.at(-1)!)).toBe(true);
    const announced = events.flatMap((e) => (e.type === "message.persisted" ? e.payload.messages : []));
    expect(await fixture.client.readHistory("s-abort-replay")).toEqual(announced);
  }, 120_000);
});
