/**
 * A worker that stalls (SIGSTOP) right after its check of the claim on a
 * turn answered and before it sends the model request (or runs a tool
 * call), long enough for another worker to take the turn over. When it
 * wakes up, its last look before the request goes out finds the check
 * older than a quarter lease, checks again, and it sends or runs nothing:
 * the request is paid once, by the new owner, and the call the new owner
 * answered as interrupted does not run behind its back. Before, the woken
 * worker went on on the strength of its old check, also when the stall
 * came while the check's answer was on its way back, as random pauses
 * found (its events were refused, but the request was paid twice, and the
 * call ran after the turn had moved on).
 *
 * A stall after that last look, in the instructions that write the request
 * to the socket (or call `execute`), cannot be caught before the request
 * goes out: the last two tests stall there and show what a host sees then.
 * The request is sent (paid twice) and the call runs (once: the new owner
 * answered it as interrupted without running it), but nothing either
 * brings back reaches the log, the history or the turn's records.
 *
 * Each test runs its workers in a deployment of its own (see
 * `DurableFixture.deployment`), so the tests run at once: most of their
 * time is spent waiting for a lease to expire.
 */
import { describe, expect, it } from "vitest";
import { INTERRUPTED_TOOL_RESULT_TEXT } from "../src/index.js";
import { assertLogInvariants } from "./support/log-assertions.js";
import { useDurableFixture } from "./support/durable-fixture.js";
import { waitFor } from "./support/worker-cluster.js";

const lease = { LEASE_MS: "1500" };
const fixture = useDurableFixture();

describe.concurrent("a worker that stalled between its claim check and a model request", () => {
  it("checks its claim again when it wakes up, and sends nothing for a turn another worker took over", async ({
    expect,
  }) => {
    const { client, env } = await fixture.deployment("stall");
    // Only the armed worker runs when the turn starts, so it takes the turn and stops before the first request.
    await fixture.cluster.start("stalls", { ...lease, ...env, TURNKIT_DURABLE_FAULT: "model-request-before-send" });
    const turn = await client.start({ sessionId: "s-stall", turnId: "stall", userMessage: { text: "hi" } });
    await waitFor("the turn runs on the armed worker", async () => {
      const status = await client.status(turn);
      return status.state === "running" && status.workerId === "stalls";
    });
    await fixture.cluster.start("takes-over", { ...lease, ...env });
    expect(await client.outcome(turn)).toMatchObject({ kind: "completed" });

    fixture.cluster.resume("stalls");
    // Time for the woken worker to send its request, were it not checked again.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const requests = fixture.cluster.counts().filter((c) => c.turnId === "stall" && c.kind === "model");
    expect(requests.map((c) => c.worker)).toEqual(["takes-over"]);
    await Promise.all([fixture.cluster.kill("stalls"), fixture.cluster.kill("takes-over")]);
  }, 60_000);

  it("checks its claim again when it wakes up, and runs no tool call of a turn another worker took over", async ({
    expect,
  }) => {
    const { client, env } = await fixture.deployment("stall-tool");
    await fixture.cluster.start("stalls-in-tool", { ...lease, ...env, TURNKIT_DURABLE_FAULT: "tool-call-before-run" });
    const turn = await client.start({
      sessionId: "s-stall-tool",
      turnId: "stall-tool",
      userMessage: { text: "write it" },
      metadata: { scenario: "tool", toolMs: 20 },
    });
    await waitFor("the turn runs on the armed worker", async () => {
      const status = await client.status(turn);
      return status.state === "running" && status.workerId === "stalls-in-tool";
    });
    await fixture.cluster.start("takes-over-tool", { ...lease, ...env });
    expect(await client.outcome(turn)).toMatchObject({ kind: "completed" });

    fixture.cluster.resume("stalls-in-tool");
    // Time for the woken worker to run the call, were it not checked again.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(fixture.countsOf(turn, "tool-start")).toBe(0);
    await Promise.all([fixture.cluster.kill("stalls-in-tool"), fixture.cluster.kill("takes-over-tool")]);
  }, 60_000);

  it("a request that passed its last check before the stall goes out when the worker wakes up, and nothing it brings back is logged", async ({
    expect,
  }) => {
    const { client, env } = await fixture.deployment("sent");
    await fixture.cluster.start("stalls-after-check", {
      ...lease,
      ...env,
      TURNKIT_DURABLE_FAULT: "model-request-after-claim-check",
    });
    const turn = await client.start({ sessionId: "s-sent", turnId: "sent", userMessage: { text: "hi" } });
    await waitFor("the turn runs on the armed worker", async () => {
      const status = await client.status(turn);
      return status.state === "running" && status.workerId === "stalls-after-check";
    });
    await fixture.cluster.start("takes-over-sent", { ...lease, ...env });
    expect(await client.outcome(turn)).toMatchObject({ kind: "completed" });
    const logged = await client.readEvents(turn);
    const history = await client.readHistory("s-sent");

    fixture.cluster.resume("stalls-after-check");
    await waitFor("the woken worker sent its request", () =>
      fixture.cluster
        .counts()
        .some((c) => c.turnId === "sent" && c.kind === "model" && c.worker === "stalls-after-check"),
    );
    // Time for its answer to be written, were the writes not fenced by the claim.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await client.readEvents(turn)).toEqual(logged);
    assertLogInvariants(logged);
    expect(await client.readHistory("s-sent")).toEqual(history);
    expect(await client.outcome(turn)).toMatchObject({ kind: "completed" });
    await Promise.all([fixture.cluster.kill("stalls-after-check"), fixture.cluster.kill("takes-over-sent")]);
  }, 60_000);

  it("a call that passed its last check before the stall runs when the worker wakes up, once, and its result is not logged", async ({
    expect,
  }) => {
    const { client, env } = await fixture.deployment("ran");
    await fixture.cluster.start("stalls-before-execute", {
      ...lease,
      ...env,
      TURNKIT_DURABLE_FAULT: "tool-call-after-claim-check",
    });
    const turn = await client.start({
      sessionId: "s-ran",
      turnId: "ran",
      userMessage: { text: "write it" },
      metadata: { scenario: "tool", toolMs: 20 },
    });
    await waitFor("the turn runs on the armed worker", async () => {
      const status = await client.status(turn);
      return status.state === "running" && status.workerId === "stalls-before-execute";
    });
    await fixture.cluster.start("takes-over-ran", { ...lease, ...env });
    expect(await client.outcome(turn)).toMatchObject({ kind: "completed" });
    const logged = await client.readEvents(turn);
    // The new owner found the call's attempt counted and answered it as interrupted, without running it.
    expect(JSON.stringify(logged)).toContain(INTERRUPTED_TOOL_RESULT_TEXT);
    expect(fixture.countsOf(turn, "tool-start")).toBe(0);

    fixture.cluster.resume("stalls-before-execute");
    await waitFor("the woken worker ran the call", () => fixture.countsOf(turn, "tool-start") === 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(fixture.countsOf(turn, "tool-start")).toBe(1);
    expect(await client.readEvents(turn)).toEqual(logged);
    assertLogInvariants(logged);
    await Promise.all([fixture.cluster.kill("stalls-before-execute"), fixture.cluster.kill("takes-over-ran")]);
  }, 60_000);

  it("a worker whose heartbeats go unanswered sends no model request and calls no hook while its lease ages, though its claim holds", async ({
    expect,
  }) => {
    const { client, env } = await fixture.deployment("unheard");
    const shortLease = { LEASE_MS: "1000" };
    // Its other statements go through: every claim check finds the claim held. Only the lease ages.
    await fixture.cluster.start("unheard", { ...shortLease, ...env, TURNKIT_DURABLE_FAULT: "heartbeats-unanswered" });
    // Past its lease: before, its claim checks passed and it sent the request, which the worker that took the
    // turn over then sent again (paid twice with no crash, as random pauses under load found).
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const turn = await client.start({
      sessionId: "s-unheard",
      turnId: "unheard",
      userMessage: { text: "hi" },
      // Slow on the unheard worker (its request, if sent, still streams when the turn is taken over), quick elsewhere.
      metadata: { scenario: "stream", deltas: 160, delayMs: 25, slowOn: "unheard", fastDelayMs: 1 },
    });
    // And a turn whose first step is a host hook that makes a request of its own (a compaction's summary).
    const hooked = await client.start({
      sessionId: "s-unheard-hook",
      turnId: "unheard-hook",
      userMessage: { text: "write it" },
      metadata: { scenario: "compaction", toolMs: 20, deltas: 5 },
    });
    await waitFor("both turns run on the unheard worker", async () => {
      const statuses = await Promise.all([turn, hooked].map((each) => client.status(each)));
      return statuses.every((status) => status.state === "running" && status.workerId === "unheard");
    });
    await fixture.cluster.start("hears", { ...shortLease, ...env });
    expect(await client.outcome(turn)).toMatchObject({ kind: "completed" });
    expect(await client.outcome(hooked)).toMatchObject({ kind: "completed" });
    // Sent once: never while the unheard worker's lease aged (by the worker that took the turn over, or by the
    // unheard one once its heartbeats were answered again).
    const requests = fixture.cluster.counts().filter((c) => c.turnId === "unheard" && c.kind === "model");
    expect(requests).toHaveLength(1);
    assertLogInvariants(await client.readEvents(turn));
    // The hook is called once, and its own request sent once: before, the unheard worker called it while its lease
    // aged, and the worker that took the turn over called it again.
    expect(fixture.countsOf(hooked, "hook")).toBe(1);
    const summaries = fixture.cluster.counts().filter((c) => c.turnId === "unheard-hook" && c.detail === "summary");
    expect(summaries).toHaveLength(1);
    assertLogInvariants(await client.readEvents(hooked));
    await Promise.all([fixture.cluster.kill("unheard"), fixture.cluster.kill("hears")]);
  }, 60_000);
});
