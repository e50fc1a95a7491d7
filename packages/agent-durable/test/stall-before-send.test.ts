/**
 * A worker that stalls (SIGSTOP) right after it checked its claim on a
 * turn and before it sends the model request (or runs a tool call), long
 * enough for another worker to take the turn over. When it wakes up, it
 * checks the claim again before the request goes out (the check is older
 * than a quarter lease) and sends or runs nothing: the request is paid
 * once, by the new owner, and the call the new owner answered as
 * interrupted does not run behind its back. Before, the woken worker went on
 * on the strength of its old check (its events were refused, but the
 * request was paid twice, and the call ran after the turn had moved on).
 */
import { describe, expect, it } from "vitest";
import { useDurableFixture } from "./support/durable-fixture.js";
import { waitFor } from "./support/worker-cluster.js";

const lease = { LEASE_MS: "1500" };
const fixture = useDurableFixture();

describe("a worker that stalled between its claim check and a model request", () => {
  it("checks its claim again when it wakes up, and sends nothing for a turn another worker took over", async () => {
    // Only the armed worker runs when the turn starts, so it takes the turn and stops before the first request.
    await fixture.cluster.start("stalls", { ...lease, TURNKIT_DURABLE_FAULT: "model-request-before-send" });
    const turn = await fixture.client.start({ sessionId: "s-stall", turnId: "stall", userMessage: { text: "hi" } });
    await waitFor("the turn runs on the armed worker", async () => {
      const status = await fixture.client.status(turn);
      return status.state === "running" && status.workerId === "stalls";
    });
    await fixture.cluster.start("takes-over", lease);
    expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "completed" });

    fixture.cluster.resume("stalls");
    // Time for the woken worker to send its request, were it not checked again.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const requests = fixture.cluster.counts().filter((c) => c.turnId === "stall" && c.kind === "model");
    expect(requests.map((c) => c.worker)).toEqual(["takes-over"]);
    await fixture.cluster.kill("stalls");
  }, 60_000);

  it("checks its claim again when it wakes up, and runs no tool call of a turn another worker took over", async () => {
    await fixture.cluster.stopAll();
    await fixture.cluster.start("stalls-in-tool", { ...lease, TURNKIT_DURABLE_FAULT: "tool-call-before-run" });
    const turn = await fixture.client.start({
      sessionId: "s-stall-tool",
      turnId: "stall-tool",
      userMessage: { text: "write it" },
      metadata: { scenario: "tool", toolMs: 20 },
    });
    await waitFor("the turn runs on the armed worker", async () => {
      const status = await fixture.client.status(turn);
      return status.state === "running" && status.workerId === "stalls-in-tool";
    });
    await fixture.cluster.start("takes-over-tool", lease);
    expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "completed" });

    fixture.cluster.resume("stalls-in-tool");
    // Time for the woken worker to run the call, were it not checked again.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(fixture.countsOf(turn, "tool-start")).toBe(0);
    await fixture.cluster.kill("stalls-in-tool");
  }, 60_000);
});
