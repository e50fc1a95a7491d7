import { type DurableTurnClient, MAX_SEQ } from "@turnkit/agent-durable";
import type { Context } from "hono";
import type { User } from "./auth.js";
import type { SessionStore } from "./session-store.js";

/** A worker process as the server reports it (so a person can kill one). */
export interface WorkerInfo {
  workerId: string;
  pid: number | undefined;
}

/** The Hono environment of the example's routes: the signed-in user, set by the login middleware. */
export type ServerEnv = { Variables: { user: User } };

/** What every route reaches: the durable turns, the session store, the worker list. */
export interface RouteDeps {
  client: DurableTurnClient;
  store: SessionStore;
  workers: () => WorkerInfo[];
  /**
   * Milliseconds a turn's stream (events or chat) may stay silent before an
   * SSE keep-alive comment goes, so that proxies and browsers keep it open
   * while a tool runs long or an approval waits; 0 sends none.
   */
  keepAliveMs: number;
}

/** A JSON error answer `{ code, message }`, with `field` naming the part of the request at fault when one is. */
export function problem(
  c: Context,
  status: 400 | 401 | 404 | 409 | 413,
  code: string,
  message: string,
  field?: string,
) {
  return c.json({ code, message, ...(field !== undefined && { field }) }, status);
}

/**
 * The seq a reader resumes after, from `given` (a `Last-Event-ID` header or
 * an `after` query value): the number when it is one the stream could have
 * sent (digits, at most agent-durable's highest seq), else `undefined`, and
 * the route answers 400 before its stream starts. A value that is no seq
 * would replay the turn from its start (the answer shown twice) or fail
 * inside the stream, after its 200 went.
 */
export function resumeSeq(given: string): number | undefined {
  if (!/^\d{1,15}$/.test(given.trim())) return undefined;
  const seq = Number(given);
  return seq <= MAX_SEQ ? seq : undefined;
}

/** The same answer for a session that does not exist and one of another user, so neither is revealed. */
export function notFound(c: Context) {
  return problem(c, 404, "not_found", "no such session");
}

/** The request body as a JSON object (`{}` when it is not one). The body limit ran before. */
export async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  try {
    const body = await c.req.json();
    return typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A new turn id, unique within its session. */
export function newTurnId(): string {
  return `t-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
