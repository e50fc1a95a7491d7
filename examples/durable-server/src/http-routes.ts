import { DurableTurnError, type DurableTurnClient } from "@turnkit/agent-durable";
import { Hono, type Context } from "hono";
import { streamSSE } from "hono/streaming";

/** A worker process as the server reports it (so a person can kill one). */
export interface WorkerInfo {
  workerId: string;
  pid: number | undefined;
}

function failure(c: Context, error: unknown) {
  if (DurableTurnError.isInstance(error))
    return c.json({ code: error.code, message: error.message }, error.code === "unknown_turn" ? 404 : 400);
  throw error;
}

async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  try {
    const body = await c.req.json();
    return typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The example's HTTP API over a durable-turn client:
 *
 * - `POST /sessions/:session/turns` `{ text, turnId? }`: start a turn (202).
 * - `GET /sessions/:session/turns/:turn`: where it is and which worker runs it.
 * - `GET /sessions/:session/turns/:turn/events`: its events as Server-Sent
 *   Events (`id` = seq), resuming after `Last-Event-ID` (or `?after=`).
 * - `POST .../steer` `{ text }`, `POST .../approvals/:requestId`
 *   `{ approved, reason? }`, `POST .../abort`.
 * - `GET /workers`: the worker processes and their pids.
 */
export function createRoutes(client: DurableTurnClient, workers: () => WorkerInfo[]): Hono {
  const app = new Hono();
  const turnOf = (c: Context) => ({ sessionId: c.req.param("session")!, turnId: c.req.param("turn")! });

  app.get("/workers", (c) => c.json(workers()));

  app.post("/sessions/:session/turns", async (c) => {
    const body = await jsonBody(c);
    const sessionId = c.req.param("session");
    const turnId = typeof body.turnId === "string" ? body.turnId : `t-${Date.now().toString(36)}`;
    try {
      await client.start({ sessionId, turnId, userMessage: { text: String(body.text ?? "") } });
    } catch (error) {
      return failure(c, error);
    }
    return c.json(
      {
        sessionId,
        turnId,
        events: `/sessions/${encodeURIComponent(sessionId)}/turns/${encodeURIComponent(turnId)}/events`,
      },
      202,
    );
  });

  app.get("/sessions/:session/turns/:turn", async (c) => {
    try {
      const status = await client.status(turnOf(c));
      const worker = status.state === "running" ? workers().find((w) => w.workerId === status.workerId) : undefined;
      return c.json({ ...status, ...(worker && { pid: worker.pid }) });
    } catch (error) {
      return failure(c, error);
    }
  });

  app.get("/sessions/:session/turns/:turn/events", (c) => {
    const afterSeq = Number(c.req.header("Last-Event-ID") ?? c.req.query("after") ?? 0) || 0;
    return streamSSE(c, async (stream) => {
      const stop = new AbortController();
      stream.onAbort(() => stop.abort());
      for await (const event of client.follow(turnOf(c), { afterSeq, signal: stop.signal })) {
        await stream.writeSSE({ id: String(event.seq), event: event.type, data: JSON.stringify(event.payload) });
      }
    });
  });

  app.post("/sessions/:session/turns/:turn/steer", async (c) => {
    const body = await jsonBody(c);
    try {
      return c.json(await client.steer(turnOf(c), { text: String(body.text ?? "") }));
    } catch (error) {
      return failure(c, error);
    }
  });

  app.post("/sessions/:session/turns/:turn/approvals/:requestId", async (c) => {
    const body = await jsonBody(c);
    const decision =
      body.approved === true
        ? { approved: true as const }
        : { approved: false as const, reason: typeof body.reason === "string" ? body.reason : undefined };
    try {
      await client.respond(turnOf(c), c.req.param("requestId"), decision);
    } catch (error) {
      return failure(c, error);
    }
    return c.body(null, 204);
  });

  app.post("/sessions/:session/turns/:turn/abort", async (c) => {
    try {
      await client.abort(turnOf(c));
    } catch (error) {
      return failure(c, error);
    }
    return c.body(null, 202);
  });

  return app;
}
