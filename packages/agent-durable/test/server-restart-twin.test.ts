/**
 * A worker frozen (a paused VM) while Postgres restarts, and its worker id
 * launched again meanwhile. The restart ended the frozen process's
 * connections, so its presence lock is free as if the process were gone;
 * the new launch took its turns over at once, and the old process, woken,
 * could send a request it had checked its claim for, which the new owner
 * sent again. A free lock says nothing about a launch whose last heartbeat
 * is older than the server: that one keeps its lease until it expires.
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { DurableTurnClient } from "../src/index.js";
import { assertLogInvariants } from "./support/log-assertions.js";
import { useOwnServer } from "./support/own-server.js";
import { waitFor } from "./support/worker-cluster.js";

const own = useOwnServer("restart", { maxConnections: 200 });

/** The executor the turn's workflow runs under, and its status. */
async function ownerOf(workflowId: string): Promise<{ executor_id: string; status: string }> {
  const db = new pg.Client({ connectionString: own.url });
  db.on("error", () => {});
  await db.connect();
  try {
    const { rows } = await db.query("SELECT executor_id, status FROM dbos.workflow_status WHERE workflow_uuid = $1", [
      workflowId,
    ]);
    return rows[0];
  } finally {
    await db.end();
  }
}

describe("a worker frozen while the database restarts, its id launched again", () => {
  it("keeps its turns: the new launch does not take them over at once, and the woken process ends them", async () => {
    // A long lease: taken over only through the presence lock, never by the lease's expiry within the test.
    const lease = { LEASE_MS: "20000" };
    await own.cluster.start("frozen", lease);
    const client = await DurableTurnClient.connect({ databaseUrl: own.url });
    try {
      const turn = await client.start({
        sessionId: "s-restart",
        turnId: "restart",
        userMessage: { text: "write it" },
        metadata: { scenario: "approval" },
      });
      const asked = async () => (await client.readEvents(turn)).find((event) => event.type === "action.required");
      await waitFor("the approval request", async () => (await asked()) !== undefined);
      const before = await ownerOf(turn.workflowId);
      const old = own.cluster.detach("frozen");
      old.kill("SIGSTOP");
      // Every connection of the frozen process ends: its presence lock is free while it lives.
      await own.server.restart();
      await own.cluster.start("frozen", lease);
      // Before, the launch queued the frozen process's turn again at once (before it was ready), and took it.
      expect(await ownerOf(turn.workflowId)).toEqual(before);
      old.kill("SIGCONT");
      const request = await asked();
      if (request?.type !== "action.required") throw new Error("no approval request");
      await client.respond(turn, request.payload.requestId, { approved: true });
      expect(await client.outcome(turn)).toMatchObject({ kind: "completed" });
      assertLogInvariants(await client.readEvents(turn));
      expect(own.cluster.counts().filter((c) => c.turnId === "restart" && c.kind === "tool-start")).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 60_000);
});
