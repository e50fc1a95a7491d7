import { DurableTurnError, type TurnAddress } from "@turnkit/agent-durable";
import { isTerminalEvent } from "@turnkit/protocol";
import {
  TURN_ID_HEADER,
  type TurnkitUIMessage,
  readTurnUIMessage,
  toUIMessageChunks,
  toUIMessageStreamResponse,
} from "@turnkit/ui-stream";
import type { Context, Hono } from "hono";
import { readChatRequest } from "./chat-request.js";
import { type RouteDeps, type ServerEnv, newTurnId, notFound, problem, resumeSeq } from "./route-context.js";

/**
 * The chat routes, in the AI SDK's UI message stream (what `useChat` with
 * `TurnkitChatTransport`, or `DefaultChatTransport` with `api: "/chat"`,
 * speaks). A chat's id is the session id.
 *
 * - `POST /chat` `{ id, messages, trigger }`: starts a turn with the last
 *   (user) message in session `id` (a new session becomes the caller's)
 *   and streams it. A body that is not JSON is 400 `invalid_json`; a
 *   missing or mistyped field is 400 `invalid_request` with `field`
 *   naming it (see `readChatRequest`). With `trigger: "regenerate-message"`
 *   the latest answer (`messageId`) is first taken out of the history (a
 *   rewind to the turn before), so the new turn answers in its place; 409
 *   `cannot_regenerate` for the first answer or an earlier one, 409
 *   `session_busy` while a turn runs.
 * - `GET /chat/:session/stream`: streams a turn again, `?turnId=` (default:
 *   the running one, the first not finished; when none runs, the latest
 *   with `Last-Event-ID`, else 204). With `Last-Event-ID`, only what
 *   follows that seq (one that is not a seq is 400 `invalid_request`);
 *   without, from the start.
 * - `GET /sessions/:session/messages`: its history as UI messages (without
 *   turns a rewind took out), `{ messages, resumeTurnId?, queuedTurns? }`;
 *   the first turn not finished has its user message last and is named in
 *   `resumeTurnId`, to stream with `?turnId=` (its answer then follows its
 *   question); the turns queued behind it (another tab sent them) are in
 *   `queuedTurns` (`{ turnId, text }`), for after it.
 *
 * A silent stream (a tool running, an approval waiting, a queued turn)
 * sends an SSE keep-alive comment every `keepAliveMs`, which `useChat`
 * skips. A client that goes away stops only its stream; the turn goes on.
 */
export function mountChatRoutes(app: Hono<ServerEnv>, { client, store, keepAliveMs }: RouteDeps): void {
  // The turn's id goes in a header too: a queued turn's stream is silent until it runs, and a client resuming it needs it.
  const uiStream = (c: Context, turn: TurnAddress, afterSeq: number) =>
    toUIMessageStreamResponse(
      toUIMessageChunks(client.follow(turn, { signal: c.req.raw.signal }), { afterSeq, messageId: turn.turnId }),
      { headers: { [TURN_ID_HEADER]: turn.turnId }, keepAliveMs },
    );

  /** True once a turn's log has its terminal status (its workflow closes a moment later). */
  const logEnded = async (turn: TurnAddress) => {
    const events = await client.readEvents(turn);
    return events.length > 0 && isTerminalEvent(events[events.length - 1]!);
  };

  /**
   * The turn of the session that runs (or, queued, runs next): the first not finished, as turns run in start order.
   * A turn whose log has ended counts as finished, as in the history a page loads: its workflow closes a moment
   * later, and a page resuming in that moment would otherwise be sent the whole answer it already shows.
   */
  const runningTurn = async (sessionId: string, turns: readonly { turnId: string }[]) => {
    let first: string | undefined;
    for (const { turnId } of [...turns].reverse()) {
      const { state } = await client.status({ sessionId, turnId });
      if (state === "finished" || state === "failed" || (await logEnded({ sessionId, turnId }))) break;
      first = turnId;
    }
    return first;
  };

  /**
   * Takes the latest answer (`messageId`, when given, must be it) out of the history, so that the turn started
   * next answers its question again in its place, as `useChat`'s `regenerate` shows it: the session is rewound
   * to the turn before. The first answer has none before it, and a running turn is not rewound: refused.
   */
  const rewindForRegenerate = async (sessionId: string, messageId: string | undefined) => {
    const listed = await client.listTurns(sessionId).catch(() => []);
    const inHistory = listed.filter((turn) => turn.inHistory);
    const latest = inHistory.at(-1);
    if (latest === undefined || (messageId !== undefined && messageId !== latest.turnId))
      return { code: "cannot_regenerate", message: "only the latest answer can be regenerated" };
    if (inHistory.length < 2)
      return { code: "cannot_regenerate", message: "the first answer cannot be regenerated: send the message again" };
    if (!(await logEnded({ sessionId, turnId: latest.turnId })))
      return { code: "session_busy", message: "the latest answer is still being written" };
    try {
      // Its log has ended, and its turn closes a moment later (a page regenerates as soon as the stream ends).
      await client.outcome({ sessionId, turnId: latest.turnId });
      await client.rewind({ sessionId, turnId: inHistory[inHistory.length - 2]!.turnId });
    } catch (error) {
      if (DurableTurnError.isInstance(error)) return { code: error.code, message: error.message };
      throw error;
    }
    return undefined;
  };

  app.post("/chat", async (c) => {
    const request = await readChatRequest(c);
    if (!("sessionId" in request)) return problem(c, 400, request.code, request.message, request.field);
    const { sessionId, text } = request;
    if ((await store.claim(sessionId, c.get("user").id, text)) !== c.get("user").id) return notFound(c);
    if (request.regenerate) {
      const refused = await rewindForRegenerate(sessionId, request.messageId);
      if (refused) return problem(c, 409, refused.code, refused.message);
    }
    const turn = { sessionId, turnId: newTurnId() };
    await client.start({ ...turn, userMessage: { text }, metadata: { userId: c.get("user").id } });
    await store.addTurn(sessionId, turn.turnId, text);
    return uiStream(c, turn, 0);
  });

  app.get("/chat/:session/stream", async (c) => {
    const lastEventId = c.req.header("Last-Event-ID");
    const afterSeq = resumeSeq(lastEventId ?? "0");
    if (afterSeq === undefined)
      return problem(c, 400, "invalid_request", "Last-Event-ID must be a seq the stream sent", "Last-Event-ID");
    const sessionId = c.req.param("session");
    const turns = await store.turns(sessionId);
    const asked = c.req.query("turnId");
    if (asked !== undefined && !turns.some((t) => t.turnId === asked))
      return problem(c, 404, "unknown_turn", `no turn ${asked} here`);
    // Not asked for one: the running turn; when none runs, the latest one for a reader resuming it, else nothing.
    const turnId =
      asked ?? (await runningTurn(sessionId, turns)) ?? (lastEventId !== undefined ? turns.at(-1)?.turnId : undefined);
    if (turnId === undefined) return c.body(null, 204);
    return uiStream(c, { sessionId, turnId }, afterSeq);
  });

  app.get("/sessions/:session/messages", async (c) => {
    const sessionId = c.req.param("session");
    const messages: TurnkitUIMessage[] = [];
    let resumeTurnId: string | undefined;
    // Turns a rewind took out of the history are not shown (their events stay readable by turn).
    const rewound = new Set(
      (await client.listTurns(sessionId).catch(() => [])).filter((t) => !t.inHistory).map((t) => t.turnId),
    );
    const queuedTurns: { turnId: string; text: string }[] = [];
    for (const { turnId, text } of await store.turns(sessionId)) {
      if (rewound.has(turnId)) continue;
      // A session's turns run one at a time in start order: those after the first unfinished one wait for it.
      if (resumeTurnId !== undefined) {
        queuedTurns.push({ turnId, text });
        continue;
      }
      messages.push({ id: `${turnId}:user`, role: "user", parts: [{ type: "text", text }] });
      const events = await client.readEvents({ sessionId, turnId });
      if (events.length > 0 && isTerminalEvent(events[events.length - 1]))
        messages.push(await readTurnUIMessage(events, { messageId: turnId }));
      else resumeTurnId = turnId;
    }
    return c.json({
      messages,
      ...(resumeTurnId && { resumeTurnId }),
      ...(queuedTurns.length > 0 && { queuedTurns }),
    });
  });
}
