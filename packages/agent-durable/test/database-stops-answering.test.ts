/*
 * A client whose database stops answering after it connected (the server
 * paused, as by SIGSTOP, or a network that drops everything: here a proxy
 * between them that stops passing bytes) rejects every call within its
 * timeouts with `database_unavailable`, a follower included, instead of
 * waiting forever; once the database answers again, the same client works.
 */
import { createServer, type Server, type Socket, connect as connectSocket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DurableTurnClient, DurableTurnError } from "../src/index.js";
import { useDurableFixture } from "./support/durable-fixture.js";
import { waitFor } from "./support/worker-cluster.js";

/** A TCP proxy to Postgres that can stop passing bytes either way (and take new connections nowhere) and go on. */
class FreezingProxy {
  private readonly pairs = new Set<[Socket, Socket]>();
  private frozen = false;
  private readonly server: Server;

  constructor(private readonly target: { host: string; port: number }) {
    this.server = createServer((downstream) => {
      const upstream = connectSocket(target.port, target.host);
      const pair: [Socket, Socket] = [downstream, upstream];
      this.pairs.add(pair);
      const drop = () => {
        downstream.destroy();
        upstream.destroy();
        this.pairs.delete(pair);
      };
      downstream.on("error", drop).on("close", drop);
      upstream.on("error", drop).on("close", drop);
      if (this.frozen) downstream.pause();
      else this.join(pair);
    });
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return (this.server.address() as { port: number }).port;
  }

  freeze(): void {
    this.frozen = true;
    for (const [down, up] of this.pairs) {
      down.unpipe(up);
      up.unpipe(down);
      down.pause();
      up.pause();
    }
  }

  thaw(): void {
    this.frozen = false;
    for (const pair of this.pairs) this.join(pair);
  }

  async close(): Promise<void> {
    for (const [down, up] of this.pairs) {
      down.destroy();
      up.destroy();
    }
    await new Promise((resolve) => this.server.close(resolve));
  }

  private join([down, up]: [Socket, Socket]): void {
    down.pipe(up);
    up.pipe(down);
  }
}

const fixture = useDurableFixture([{ id: "w1" }]);
const TIMEOUTS = { connectTimeoutMs: 800, queryTimeoutMs: 800 };
let proxy: FreezingProxy;
let proxiedUrl: string;
let client: DurableTurnClient;

beforeAll(async () => {
  const url = new URL(fixture.postgres.url);
  proxy = new FreezingProxy({ host: url.hostname, port: Number(url.port) });
  url.port = String(await proxy.listen());
  proxiedUrl = url.toString();
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
    // Each within a connection's or a statement's timeout (a transaction's rollback waits one more), with room for a loaded machine.
    for (const [i, result] of results.entries()) expect(result.ms, names[i]).toBeLessThan(5_000);
    expect(await following).toMatchObject({ code: "database_unavailable" });

    proxy.thaw();
    expect(await client.status(turn)).toMatchObject({ state: "running" });
    await client.respond(turn, "approval:paused-call-0", { approved: true });
    expect(await client.outcome(turn)).toMatchObject({ kind: "completed" });
  });
});
