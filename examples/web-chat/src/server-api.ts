/*
 * The durable server's routes the page calls besides the chat stream:
 * sessions, history, and the turn controls (approve, answer a question, steer, abort).
 */
import type { TurnkitUIMessage } from "@turnkit/ui-stream";

/** A session in the list. */
export interface SessionSummary {
  sessionId: string;
  title: string;
  updatedAt: string;
}

/**
 * A session as the page loads it: the finished turns, then the first turn
 * not finished (its question last, its id in `resumeTurnId`), and the
 * turns queued behind it (sent from another tab).
 */
export interface SessionHistory {
  messages: TurnkitUIMessage[];
  resumeTurnId?: string;
  queuedTurns?: { turnId: string; text: string }[];
}

/** A person's reply to a question an MCP server asked (an elicitation): accept with the values, or decline. */
export type QuestionAnswer =
  | { action: "accept"; content: Record<string, string | number | boolean> }
  | { action: "decline" }
  | { action: "cancel" };

/** The bearer token: from the link the server printed (`#token=…`), kept for this tab. */
export function readToken(): string | undefined {
  const fromLink = new URLSearchParams(location.hash.slice(1)).get("token");
  if (fromLink) {
    sessionStorage.setItem("turnkit-token", fromLink);
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem("turnkit-token") ?? undefined;
}

/** A call the server answered with a non-2xx status (`status`), or that did not reach it (`status` undefined). */
export class ServerCallError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
    this.name = "ServerCallError";
  }
}

/** Calls the server with the token; throws a {@link ServerCallError} on a non-2xx answer or a failed request. */
export function serverApi(token: string) {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).catch((error: Error) => {
      throw new ServerCallError(`${method} ${path}: ${error.message}`, undefined);
    });
    if (!res.ok) throw new ServerCallError(`${method} ${path}: ${res.status} ${await res.text()}`, res.status);
    return res.status === 204 || res.status === 202 ? undefined : res.json();
  };
  const turn = (sessionId: string, turnId: string) =>
    `/sessions/${encodeURIComponent(sessionId)}/turns/${encodeURIComponent(turnId)}`;
  return {
    sessions: (): Promise<SessionSummary[]> => call("GET", "/sessions"),
    history: (sessionId: string): Promise<SessionHistory> =>
      call("GET", `/sessions/${encodeURIComponent(sessionId)}/messages`),
    answer: (sessionId: string, turnId: string, requestId: string, approved: boolean) =>
      call("POST", `${turn(sessionId, turnId)}/approvals/${encodeURIComponent(requestId)}`, {
        approved,
        ...(!approved && { reason: "Denied in the web chat." }),
      }),
    reply: (sessionId: string, turnId: string, requestId: string, answer: QuestionAnswer) =>
      call("POST", `${turn(sessionId, turnId)}/approvals/${encodeURIComponent(requestId)}`, answer),
    steer: (sessionId: string, turnId: string, text: string): Promise<{ accepted: boolean }> =>
      call("POST", `${turn(sessionId, turnId)}/steer`, { text }),
    abort: (sessionId: string, turnId: string) => call("POST", `${turn(sessionId, turnId)}/abort`),
  };
}

/** What {@link serverApi} returns. */
export type ServerApi = ReturnType<typeof serverApi>;
