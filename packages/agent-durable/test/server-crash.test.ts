/**
 * Postgres crashes while a turn's tool call runs (an immediate shutdown, as
 * a crash of its host or process): what the turn wrote without waiting for
 * the disk since its last commit that waited is lost, here the events
 * logged as the call started. The
 * execution, still running in its worker, went on writing its events after
 * the lost ones when the call ended: the log had a gap (a chaos run with immediate restarts of
 * a crash-safe server, seed 112228350: seqs 37 and 38 missing). A claim
 * taken before the server started holds no more, and the turn goes on from
 * what the server kept, as after a crash of its worker at that point.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DurableTurnClient } from "../src/index.js";
import { type EmbeddedServer, startEmbeddedServer } from "../src/testing/embedded-server.js";
import { assertLogInvariants } from "./support/log-assertions.js";
import { WorkerCluster, waitFor } from "./support/worker-cluster.js";

let server: EmbeddedServer;
let url: string;
let scratch: string;
let cluster: WorkerCluster;

beforeAll(async () => {
  // A server that keeps what it acknowledged as durable, whose WAL writer waits long: the commits that did not wait
  // for the disk stay in memory until a commit that waits (or 10 s) writes them, so a crash loses them for sure.
  server = await startEmbeddedServer({ crashSafe: true, maxConnections: 200, settings: { wal_writer_delay: "10000" } });
  await server.createDatabase("crash");
  url = server.urlOf("crash");
  scratch = mkdtempSync(join(tmpdir(), "turnkit-durable-crash-"));
  cluster = new WorkerCluster(url, join(scratch, "counts.jsonl"));
}, 60_000);

afterAll(async () => {
  await cluster?.stopAll();
  await server?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}, 60_000);

describe("Postgres crashes while a turn's tool call runs", () => {
  it("the turn goes on from what the server kept: its log without a gap, its call run once", async () => {
    // A long lease: no heartbeat (a commit that waits) between the call's start and the crash.
    await cluster.start("w", { LEASE_MS: "60000" });
    const client = await DurableTurnClient.connect({ databaseUrl: url });
    try {
      const turn = await client.start({
        sessionId: "s-crash",
        turnId: "crash",
        userMessage: { text: "write it" },
        metadata: { scenario: "tool", toolMs: 4000 },
      });
      await waitFor("the tool call running", () => cluster.counts().some((c) => c.kind === "tool-start"));
      await server.crashAndRestart();
      expect(await client.outcome(turn)).toMatchObject({ kind: "completed" });
      assertLogInvariants(await client.readEvents(turn));
      // The call running at the crash (`replay: "never"`) is answered as interrupted, not run again.
      expect(cluster.counts().filter((c) => c.turnId === "crash" && c.kind === "tool-start")).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 60_000);
});
