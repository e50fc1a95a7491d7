import { DurableTurnError } from "@turnkit/agent-durable";
import type { Context, Hono } from "hono";
import { type RouteDeps, type ServerEnv, jsonBody, problem } from "./route-context.js";

/** A `DurableTurnError` as an HTTP answer: unknown things 404, conflicts with the session's state 409, the rest 400. */
function failure(c: Context, error: unknown) {
  if (!DurableTurnError.isInstance(error)) throw error;
  switch (error.code) {
    case "unknown_session":
    case "unknown_turn":
      return problem(c, 404, error.code, error.message);
    case "session_busy":
    case "session_exists":
    case "turn_not_finished":
    case "turn_not_in_history":
      return problem(c, 409, error.code, error.message);
    default:
      return problem(c, 400, error.code, error.message);
  }
}

/** A new session id for a fork. */
function newSessionId(): string {
  return `s-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * The session routes (a `:session` was checked to be the caller's before
 * any of these runs):
 *
 * - `GET /sessions?limit=&after=`: the caller's sessions, the most recently
 *   used first, `limit` (1-200, default 50) per page; when there are more,
 *   the `X-Next-After` header holds the `after` of the next page.
 * - `GET /sessions/:session/turns`: its turns in start order, with state,
 *   outcome, label and whether each is still in the history.
 * - `GET /sessions/:session/history`: `{ messages }`, the history its next
 *   turn will see.
 * - `POST /sessions/:session/fork` `{ atTurnId, sessionId? }`: a new session
 *   of the caller's whose history is this one's as it stood when `atTurnId`
 *   finished (201 `{ sessionId }`).
 * - `POST /sessions/:session/rewind` `{ toTurnId }`: the next turn sees the
 *   history as it stood when `toTurnId` finished (204); later turns stay
 *   readable.
 * - `PUT /sessions/:session/turns/:turn/label` `{ label }`: names a turn
 *   (`null` clears it; 204).
 *
 * Errors are `{ code, message }` with the client's stable code: 404 for an
 * unknown session or turn, 409 for a running turn or session (or a fork
 * target that exists), 400 for malformed input.
 */
export function mountSessionRoutes(app: Hono<ServerEnv>, { client, store }: RouteDeps): void {
  app.get("/sessions", async (c) => {
    const limit = Number(c.req.query("limit") ?? 50);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200)
      return problem(c, 400, "invalid_input", "limit must be an integer from 1 to 200");
    const page = await store.sessionsOf(c.get("user").id, { limit, after: c.req.query("after") });
    if (page.next) c.header("X-Next-After", page.next);
    return c.json(page.sessions);
  });

  app.get("/sessions/:session/turns", async (c) => {
    try {
      return c.json(await client.listTurns(c.req.param("session")));
    } catch (error) {
      return failure(c, error);
    }
  });

  app.get("/sessions/:session/history", async (c) => {
    try {
      return c.json({ messages: await client.readHistory(c.req.param("session")) });
    } catch (error) {
      return failure(c, error);
    }
  });

  app.post("/sessions/:session/fork", async (c) => {
    const body = await jsonBody(c);
    const from = c.req.param("session");
    const into = typeof body.sessionId === "string" && body.sessionId !== "" ? body.sessionId : newSessionId();
    // A session id the store knows (even one whose first turn never started) is taken.
    if ((await store.ownerOf(into)) !== undefined)
      return problem(c, 409, "session_exists", `session ${JSON.stringify(into)} already exists`);
    try {
      await client.fork({ sessionId: from, turnId: String(body.atTurnId ?? "") }, into);
    } catch (error) {
      return failure(c, error);
    }
    // The fork exists only once the durable layer made it: then it becomes the caller's.
    await store.claim(into, c.get("user").id, `Fork of ${from} at ${String(body.atTurnId)}`);
    return c.json({ sessionId: into }, 201);
  });

  app.post("/sessions/:session/rewind", async (c) => {
    const body = await jsonBody(c);
    try {
      await client.rewind({ sessionId: c.req.param("session"), turnId: String(body.toTurnId ?? "") });
    } catch (error) {
      return failure(c, error);
    }
    return c.body(null, 204);
  });

  app.put("/sessions/:session/turns/:turn/label", async (c) => {
    const body = await jsonBody(c);
    const turn = { sessionId: c.req.param("session"), turnId: c.req.param("turn") };
    try {
      await client.labelTurn(turn, body.label === null ? undefined : (body.label as string));
    } catch (error) {
      return failure(c, error);
    }
    return c.body(null, 204);
  });
}
