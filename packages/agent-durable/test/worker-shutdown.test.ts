/**
 * A worker shut down cleanly (`shutdown()`, as on a deploy) while it runs
 * turns: each is handed back and goes on in another worker at once, as
 * after a crash, and ends once, as it would have. Before, a step that
 * ended after DBOS was shut down failed with `worker_state`, and DBOS,
 * whose pool was still open, recorded that as the workflow's failure: the
 * turn's `outcome` rejected and no worker ever resumed it.
 *
 * A worker that began to shut down starts no model request: one whose
 * claim check answered after the shutdown began (here a frozen proxy holds
 * the answer until then) stops there, and the next worker sends it, once.
 * Before, the answer (the hand-back had not committed yet) let the request
 * go out from the worker that was leaving.
 */
import { type ChildProcess, execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { useDurableFixture } from "./support/durable-fixture.js";
import { proxiedDatabase } from "./support/freezing-proxy.js";
import { assertLogInvariants } from "./support/log-assertions.js";
import { executorOf, leftLaunch } from "./support/turn-executor.js";
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
    const leaving = await executorOf(fixture.postgres.url, streaming);
    expect(await executorOf(fixture.postgres.url, waiting)).toBe(leaving);
    await fixture.cluster.terminate("leaves");
    // Handed back before its process exited, not left for the 20 s lease to expire: queued again already.
    for (const turn of [streaming, waiting]) await leftLaunch(fixture.postgres.url, turn, leaving, 0);
    await fixture.cluster.start("stays", lease);
    const [asked] = await fixture.eventsOfType(waiting, "action.required");
    if (asked?.type !== "action.required") throw new Error("no approval request");
    await fixture.client.respond(waiting, asked.payload.requestId, { approved: true });
    // Then each runs to its end in the worker that stays, in however long a loaded machine takes.
    for (const turn of [streaming, waiting]) {
      expect(await fixture.client.outcome(turn), turn.turnId).toMatchObject({ kind: "completed" });
      assertLogInvariants(await fixture.client.readEvents(turn));
    }
  });

  it("starts no model request once it began to shut down: the turn's request is sent once, by the next worker", async () => {
    const { client, env } = await fixture.deployment("shutdown-send");
    // A lease of 4 s: a claim confirmed more than 1 s ago is checked again before a request goes out, and the lease
    // covers effects for 3 s after a heartbeat.
    const settings = { LEASE_MS: "4000", ...env };
    const turn = { sessionId: "s-shutdown-send", turnId: "shutdown-send" };
    const { proxy, url } = await proxiedDatabase(fixture.postgres.url);
    try {
      await fixture.cluster.start("stops", {
        ...settings,
        DATABASE_URL: url,
        TURNKIT_DURABLE_FAULT: "model-request-before-send",
      });
      const stops = fixture.cluster.detach("stops");
      await client.start({ ...turn, userMessage: { text: "hi" } });
      // Stalled between its claim check and the request, told to shut down, and woken once the check is old: it
      // checks its claim again, whose answer the frozen proxy holds until the shutdown has begun.
      await waitFor("the worker stalled before its request", () => isStopped(stops));
      proxy.freeze();
      stops.kill("SIGTERM");
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      stops.kill("SIGCONT");
      await waitFor("the shutdown began", () =>
        fixture.cluster.output.some((chunk) => chunk.startsWith("[stops]") && chunk.includes("shutting down")),
      );
      proxy.thaw();
      // The claim still held when it was checked (the hand-back commits after it): the worker stalls at the same
      // point again, and is woken each time until it exited.
      await wakeUntilExited(stops);
      expect(stops.exitCode).toBe(0);
    } finally {
      proxy.thaw();
      await proxy.close();
    }
    await fixture.cluster.start("sends", settings);
    expect(await client.outcome(turn)).toMatchObject({ kind: "completed" });
    const requests = fixture.cluster.counts().filter((c) => c.turnId === "shutdown-send" && c.kind === "model");
    expect(requests.map((c) => c.worker)).toEqual(["sends"]);
    assertLogInvariants(await client.readEvents(turn));
    await fixture.cluster.kill("sends");
  }, 60_000);
});

/** Whether the process is stopped (SIGSTOP), by its state as `ps` shows it. */
function isStopped(child: ChildProcess): boolean {
  if (child.exitCode !== null || child.signalCode !== null) return false;
  try {
    return execFileSync("ps", ["-o", "stat=", "-p", String(child.pid)], { encoding: "utf8" })
      .trim()
      .startsWith("T");
  } catch {
    return false; // gone meanwhile
  }
}

/** Sends SIGCONT whenever the process stopped itself, until it exited. */
async function wakeUntilExited(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  let done = false;
  void exited.then(() => (done = true));
  while (!done) {
    if (isStopped(child)) child.kill("SIGCONT");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
