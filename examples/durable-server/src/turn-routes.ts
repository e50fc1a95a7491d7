import { DurableTurnError } from "@turnkit/agent-durable";
import type { ActionAnswer } from "@turnkit/protocol";
import type { Context, Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { KEEP_ALIVE_COMMENT } from "@turnkit/ui-stream";
import { type RouteDeps, type ServerEnv, jsonBody, newTurnId, notFound, problem, resumeSeq } from "./route-context.js";

function failure(c: Context, error: unknown) {
  if (DurableTurnError.isInstance(error)) {
    if (error.code === "unknown_turn") return problem(c, 404, error.code, error.message);
    if (error.code === "request_withdrawn") return problem(c, 409, error.code, error.message);
    return problem(c, 400, error.code, error.message);
  }
  throw error;
}

/**
 * The turn routes, in Turnkit's own event format (the session was checked
 * to be the caller's before any of these runs):
 *
 * - `POST /sessions/:session/turns` `{ text, turnId? }`: start a turn (202);
 *   a new session becomes the caller's.
 * - `GET /sessions/:session/turns/:turn`: where it is and which worker runs it.
 * - `GET /sessions/:session/turns/:turn/events`: its events as Server-Sent
 *   Events (`id` = seq), resuming after `Last-Event-ID` (or `?after=`; a
 *   value that is no seq is a 400 naming it), with a keep-alive comment
 *   every `keepAliveMs` while no event comes.
 * - `POST .../steer` `{ text }`, `POST .../approvals/:requestId`
 *   `{ approved, reason? }` (an approval) or `{ action, content? }` (an
 *   elicitation), `POST .../abort`.
 */
export function mountTurnRoutes(app: Hono<ServerEnv>, { client, store, workers, keepAliveMs }: RouteDeps): void {
  const turnOf = (c: Context) => ({ sessionId: c.req.param("session")!, turnId: c.req.param("turn")! });

  app.post("/sessions/:session/turns", async (c) => {
    const body = await jsonBody(c);
    const sessionId = c.req.param("session");
    const text = String(body.text ?? "");
    const turnId = typeof body.turnId === "string" && body.turnId !== "" ? body.turnId : newTurnId();
    if ((await store.claim(sessionId, c.get("user").id, text)) !== c.get("user").id) return notFound(c);
    try {
      await client.start({ sessionId, turnId, userMessage: { text } });
    } catch (error) {
      return failure(c, error);
    }
    await store.addTurn(sessionId, turnId, text);
    const events = `/sessions/${encodeURIComponent(sessionId)}/turns/${encodeURIComponent(turnId)}/events`;
    return c.json({ sessionId, turnId, events }, 202);
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

  app.get("/sessions/:session/turns/:turn/events", async (c) => {
    try {
      await client.status(turnOf(c)); // an unknown turn is 404, not a stream that waits forever
    } catch (error) {
      return failure(c, error);
    }
    const [field, given] =
      c.req.header("Last-Event-ID") !== undefined
        ? ["Last-Event-ID", c.req.header("Last-Event-ID")!]
        : ["after", c.req.query("after") ?? "0"];
    const afterSeq = resumeSeq(given);
    if (afterSeq === undefined)
      return problem(c, 400, "invalid_request", `${field} must be a seq the stream sent`, field);
    return streamSSE(c, async (stream) => {
      const stop = new AbortController();
      stream.onAbort(() => stop.abort());
      let keepAlive: ReturnType<typeof setInterval> | undefined;
      // Restarted at each event, so comments go only while the turn is silent; a write to a closed stream is a no-op.
      const quietFromNow = () => {
        clearInterval(keepAlive);
        if (keepAliveMs > 0) keepAlive = setInterval(() => void stream.write(KEEP_ALIVE_COMMENT), keepAliveMs);
      };
      try {
        quietFromNow();
        for await (const event of client.follow(turnOf(c), { afterSeq, signal: stop.signal })) {
          await stream.writeSSE({ id: String(event.seq), event: event.type, data: JSON.stringify(event.payload) });
          quietFromNow();
        }
      } finally {
        clearInterval(keepAlive);
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
    // An elicitation's answer goes as it came (`respond` checks it against the request); anything else is an approval.
    const answer =
      typeof body.action === "string"
        ? (body as unknown as ActionAnswer)
        : body.approved === true
          ? { approved: true as const }
          : { approved: false as const, reason: typeof body.reason === "string" ? body.reason : undefined };
    try {
      await client.respond(turnOf(c), c.req.param("requestId"), answer);
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
}
