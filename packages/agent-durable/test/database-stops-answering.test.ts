/*
 * A client whose database stops answering after it connected (the server
 * paused, as by SIGSTOP, or a network that drops everything: here a proxy
 * between them that stops passing bytes) rejects every call within its
 * timeouts with `database_unavailable`, a follower included, instead of
 * waiting forever; once the database answers again, the same client works.
 *
 * Workers whose database stops answering for longer than their lease (each
 * behind a proxy of its own, all frozen) go on with their turns when it
 * answers again: none takes the others' turns over because their
 * heartbeats are old (their workers could not write them either), so no
 * model request is sent twice.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DurableTurnClient, DurableTurnError } from "../src/index.js";
import { useDurableFixture } from "./support/durable-fixture.js";
import { FreezingProxy, proxiedDatabase } from "./support/freezing-proxy.js";
import { assertLogInvariants } from "./support/log-assertions.js";
import { waitFor } from "./support/worker-cluster.js";

const fixture = useDurableFixture([{ id: "w1" }]);
const TIMEOUTS = { connectTimeoutMs: 800, queryTimeoutMs: 800 };
let proxy: FreezingProxy;
let proxiedUrl: string;
let client: DurableTurnClient;

beforeAll(async () => {
  ({ proxy, url: proxiedUrl } = await proxiedDatabase(fixture.postgres.url));
  client = await DurableTurnClient.connect({ databaseUrl: proxiedUrl, ...TIMEOUTS });
});
afterAll(async () => {
  proxy?.thaw();
  await client?.close();
  await proxy?.close();
});

/** How `call` ended and when: resolved, or the code it rejected with. */
async function settle(call: () => Promise<unknown>): Promise<{ code: string; ms: number }> {
  const started = Date.now();
  const code = await call().then(
    () => "resolved",
    (error: unknown) => (DurableTurnError.isInstance(error) ? error.code : `untyped: ${String(error)}`),
  );
  return { code, ms: Date.now() - started };
}

async function drain(events: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of events);
}

describe("a database that stops answering after the client connected", () => {
  it("makes every call reject with database_unavailable within its timeouts; the client works again after", async () => {
    const turn = await client.start({
      sessionId: "s-paused",
      turnId: "paused",
      userMessage: { text: "write it" },
      metadata: { scenario: "approval" },
    });
    await waitFor("the approval request", async () =>
      (await fixture.client.readEvents(turn)).some((e) => e.type === "action.required"),
    );
    // A follower that waits for the turn's next event when the database stops answering.
    const following = settle(() => drain(client.follow(turn)));
    await new Promise((resolve) => setTimeout(resolve, 100));

    proxy.freeze();
    const other = { sessionId: "s-paused", turnId: "other" };
    const calls = {
      connect: () => DurableTurnClient.connect({ databaseUrl: proxiedUrl, ...TIMEOUTS }),
      start: () => client.start({ ...other, userMessage: { text: "hi" } }),
      status: () => client.status(turn),
      steer: () => client.steer(turn, { text: "more" }),
      respond: () => client.respond(turn, "approval:paused-call-0", { approved: true }),
      abort: () => client.abort(turn),
      readEvents: () => client.readEvents(turn),
      follow: () => drain(client.follow(turn)),
      outcome: () => client.outcome(turn),
      listTurns: () => client.listTurns("s-paused"),
      readHistory: () => client.readHistory("s-paused"),
      listSessions: () => client.listSessions(),
    };
    const names = Object.keys(calls) as (keyof typeof calls)[];
    const results = await Promise.all(names.map((name) => settle(calls[name])));
    const ended = Object.fromEntries(names.map((name, i) => [name, results[i]!.code]));
    console.log(`ms to reject: ${JSON.stringify(Object.fromEntries(names.map((name, i) => [name, results[i]!.ms])))}`);
    expect(ended).toEqual(Object.fromEntries(names.map((name) => [name, "database_unavailable"])));
    // Each within a connection's or a statement's timeout (a transaction cut so is not rolled back), with room for a loaded machine.
    for (const [i, result] of results.entries()) expect(result.ms, names[i]).toBeLessThan(5_000);
    expect(await following).toMatchObject({ code: "database_unavailable" });

    proxy.thaw();
    expect(await client.status(turn)).toMatchObject({ state: "running" });
    await client.respond(turn, "approval:paused-call-0", { approved: true });
    expect(await client.outcome(turn)).toMatchObject({ kind: "completed" });
  });
});

describe("workers whose database stops answering for longer than their lease", () => {
  it("go on with their turns once it answers again: none takes another's over, no request is sent twice", async () => {
    await fixture.cluster.stopWorkers();
    const lease = { LEASE_MS: "1000" };
    const [a, b] = await Promise.all([proxiedDatabase(fixture.postgres.url), proxiedDatabase(fixture.postgres.url)]);
    try {
      await fixture.cluster.start("paused-a", { ...lease, DATABASE_URL: a.url });
      const turn = await fixture.client.start({
        sessionId: "s-db-paused",
        turnId: "db-paused",
        userMessage: { text: "hi" },
        metadata: { scenario: "stream", deltas: 80, delayMs: 25 },
      });
      await waitFor("the turn streams on worker a", async () => {
        const status = await fixture.client.status(turn);
        return status.state === "running" && (await fixture.eventsOfType(turn, "stream.resp")).length > 0;
      });
      await fixture.cluster.start("paused-b", { ...lease, DATABASE_URL: b.url });
      a.proxy.freeze();
      b.proxy.freeze();
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      // The database answers worker b first: a's heartbeat, which a could not write, is older than the lease.
      b.proxy.thaw();
      await new Promise((resolve) => setTimeout(resolve, 100));
      a.proxy.thaw();
      expect(await fixture.client.outcome(turn)).toMatchObject({ kind: "completed" });
      const requests = fixture.cluster.counts().filter((c) => c.turnId === "db-paused" && c.kind === "model");
      expect(requests.map((c) => c.worker)).toEqual(["paused-a"]);
      assertLogInvariants(await fixture.client.readEvents(turn));
    } finally {
      a.proxy.thaw();
      b.proxy.thaw();
      await fixture.cluster.stopWorkers();
      await Promise.all([a.proxy.close(), b.proxy.close()]);
    }
  }, 60_000);
});
