/**
 * The tests' freezing proxy passes each byte once, however often it is
 * thawed, and a freeze at the n-th connection lasts its time from that
 * connection on. Before, a thaw piped again connections that passed
 * already (every later byte went twice: a launch under load failed with
 * the server's "expected password response, got message type 0", its
 * startup message received twice), and a test's thaw timer ran from the
 * call, so a slow client reached its n-th connection after the thaw.
 */
import { createServer, type Server, type Socket, connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { FreezingProxy } from "./support/freezing-proxy.js";
import { waitFor } from "./support/worker-cluster.js";

/** A TCP server that keeps what each connection sent, and when its first byte came. */
async function recordingServer(): Promise<{ server: Server; port: number; received: { text: string; at?: number }[] }> {
  const received: { text: string; at?: number }[] = [];
  const server = createServer((socket) => {
    const record: { text: string; at?: number } = { text: "" };
    received.push(record);
    socket.on("data", (chunk: Buffer) => {
      record.at ??= performance.now();
      record.text += String(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port, received };
}

async function connected(port: number): Promise<Socket> {
  const socket = connect(port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  return socket;
}

const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function proxyTo(): Promise<{ proxy: FreezingProxy; port: number; received: { text: string; at?: number }[] }> {
  const { server, port, received } = await recordingServer();
  closing.push(() => new Promise((resolve) => server.close(resolve)));
  const proxy = new FreezingProxy({ host: "127.0.0.1", port });
  closing.push(() => proxy.close());
  return { proxy, port: await proxy.listen(), received };
}

describe("the freezing proxy", () => {
  it("passes each byte once when thawed while nothing is frozen, and when thawed twice", async () => {
    const { proxy, port, received } = await proxyTo();
    const socket = await connected(port);
    closing.push(async () => socket.destroy());
    proxy.thaw();
    socket.write("one;");
    await waitFor("the first write passed", () => (received[0]?.text.length ?? 0) >= "one;".length, 2_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received[0]?.text).toBe("one;");
    proxy.freeze();
    socket.write("two;");
    proxy.thaw();
    proxy.thaw();
    socket.write("three;");
    await waitFor("the later writes passed", () => (received[0]?.text.length ?? 0) >= "one;two;three;".length, 2_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received[0]?.text).toBe("one;two;three;");
  });

  it("holds the n-th connection's bytes for thawAfterMs from when it came in, not from the call", async () => {
    const { proxy, port, received } = await proxyTo();
    proxy.freezeAtConnection(2, 150);
    const first = await connected(port);
    closing.push(async () => first.destroy());
    // Later than thawAfterMs after the call, as a launch on a loaded machine reaches its n-th connection.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const second = await connected(port);
    const connectedAt = performance.now();
    closing.push(async () => second.destroy());
    second.write("held;");
    await waitFor("the held write passed", () => received[1]?.text === "held;", 2_000);
    expect(received[1]!.at! - connectedAt).toBeGreaterThanOrEqual(140);
  });
});
