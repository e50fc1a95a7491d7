import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { requestId, requestMethod } from "./posted-request.js";

/**
 * What marks the error answer {@link fetchEndingUnansweredStreams} adds for
 * a request its event stream did not answer (the `data` of that JSON-RPC
 * error), so that the failure is classified as the server's protocol error.
 */
export const UNANSWERED_STREAM_MARKER = "turnkit.unanswered-stream";

/** True for the `data` of the error answer added for a request whose event stream ended without its answer. */
export function isUnansweredStreamMarker(data: unknown): boolean {
  return (
    typeof data === "object" && data !== null && (data as { marker?: unknown }).marker === UNANSWERED_STREAM_MARKER
  );
}

/**
 * A `fetch` for the Streamable HTTP client transport that answers a request
 * whose POST's event stream ended without its answer, so that the request
 * fails at once instead of after `callTimeoutMs`.
 *
 * The answer to a POSTed request comes on that POST's own event stream (or
 * on a stream resumed from it: a server never sends it on the session's
 * own stream). When the stream ends cleanly without it, and without an
 * event id (which lets the SDK resume the stream from there with a GET
 * carrying `Last-Event-ID`, and get the answer later), the answer can no
 * longer come, but the SDK keeps waiting for it. So the answer stream is
 * ended here with one more event: a JSON-RPC error answer for the request,
 * its `data` marked ({@link isUnansweredStreamMarker}). It comes after
 * every event the server sent, so a request the server did answer never
 * sees it (the SDK drops an answer to a request no longer waiting, as it
 * does for one cancelled meanwhile). Only whole events (ended by a blank
 * line) count as the server's answer. A stream that breaks is left as it
 * broke, and other answers pass through.
 *
 * A stream that answered its request ends with the chunk that held the
 * answer: the request is done, and a server SHOULD end the stream then
 * (what it sends later answers nothing of this request). One that keeps it
 * open would otherwise hold a socket for every request of the session, on
 * both sides, for the session's life and past the host's dispose.
 *
 * A stream that answered its request with an error, or whose request the
 * client cancelled (its POST is closed then, see
 * `fetchClosingCancelledRequests`), is never resumed either, and the
 * latter gets no marked answer: nothing waits for one. The SDK's client counts only a result as the request's answer:
 * after an error answer on a stream whose events have ids (a server with
 * an event store, such as the SDK's own with `eventStore`, primes every
 * stream with one) it resumes the ended stream with a GET carrying
 * `Last-Event-ID`, which such a server holds open for the session's life:
 * one socket per error answer, until dispose. That GET is answered here
 * with 405, which the SDK takes quietly (a server that offers no stream),
 * and never sent.
 *
 * A resumable stream is resumed by the SDK; a server that refuses the
 * resumption with 405 (it offers no GET stream, which the SDK takes
 * quietly) gets the same marked answer, as an event stream answering the
 * GET. Any other refusal is the SDK's to report (the connection is lost).
 * With a session, a server that went away also ends its streams cleanly:
 * the connection tells the two apart (see `McpConnection.request`).
 */
export function fetchEndingUnansweredStreams(base: FetchLike): FetchLike {
  /** The request each unanswered, resumable stream was for, by its last event id. */
  const resumable = new Map<string, string | number>();
  /**
   * The last event ids of streams whose request is settled without a result (answered with an error, or
   * cancelled by the client), which the SDK resumes all the same.
   */
  const settled = new Set<string>();
  /** The requests the client cancelled whose stream is still being read. */
  const cancelled = new Set<string | number>();
  return async (url, init) => {
    if (init?.method === "GET") {
      const lastEventId = new Headers(init.headers).get("last-event-id");
      if (lastEventId !== null && settled.delete(lastEventId)) return new Response(null, { status: 405 });
      return refusedResumption(await base(url, init), init, resumable);
    }
    const cancelling = init?.method === "POST" ? cancelledRequestId(init.body) : undefined;
    if (cancelling !== undefined) cancelled.add(cancelling);
    const id = init?.method === "POST" ? requestId(init.body) : undefined;
    let response: Response;
    try {
      response = await base(url, init);
    } catch (error) {
      // A JSON answer held back, its POST closed when it was cancelled.
      if (id !== undefined) cancelled.delete(id);
      throw error;
    }
    if (id === undefined || response.status !== 200 || response.body === null || !isEventStream(response)) {
      if (id !== undefined) cancelled.delete(id);
      return response;
    }
    const watch = new AnswerWatch(id);
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (!done) {
          watch.read(value);
          controller.enqueue(value);
          // The request is answered: its stream is done, also when the server keeps it open.
          if (watch.answered) {
            cancelled.delete(id);
            if (watch.answered === "error" && watch.lastEventId !== undefined) settled.add(watch.lastEventId);
            controller.close();
            void reader.cancel().catch(() => {});
          }
          return;
        }
        // The client gave the request up (its POST was closed for it): nothing waits for its answer.
        if (!watch.answered && cancelled.delete(id)) {
          if (watch.lastEventId !== undefined) settled.add(watch.lastEventId);
        } else if (!watch.answered && watch.lastEventId === undefined)
          controller.enqueue(new TextEncoder().encode(unansweredEvent(id)));
        else if (!watch.answered && watch.lastEventId !== undefined) resumable.set(watch.lastEventId, id);
        controller.close();
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** The id of the request a POST body cancels (`notifications/cancelled`), or `undefined`. */
function cancelledRequestId(body: unknown): string | number | undefined {
  if (requestMethod(body) !== "notifications/cancelled" || typeof body !== "string") return undefined;
  const { params } = JSON.parse(body) as { params?: { requestId?: unknown } };
  const id = params?.requestId;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

/**
 * A GET resuming the stream of an unanswered request, refused with 405:
 * an event stream holding the marked answer instead. Any other response
 * passes through (and a resumption answered ends the entry: the request's
 * later stream ids are the SDK's).
 */
function refusedResumption(response: Response, init: RequestInit, resumable: Map<string, string | number>): Response {
  const lastEventId = new Headers(init.headers).get("last-event-id");
  const id = lastEventId === null ? undefined : resumable.get(lastEventId);
  if (lastEventId === null || id === undefined) return response;
  resumable.delete(lastEventId);
  if (response.status !== 405) return response;
  void response.body?.cancel();
  return new Response(unansweredEvent(id), { status: 200, headers: { "content-type": "text/event-stream" } });
}

function isEventStream(response: Response): boolean {
  return response.headers.get("content-type")?.includes("text/event-stream") ?? false;
}

/** Reads an event stream as it passes: whether it answered request `id`, and whether any event had an id. */
class AnswerWatch {
  /** How the stream answered its request, once it did. */
  answered: "result" | "error" | undefined;
  /** The id of the latest event that had one: the stream can be resumed from there. */
  lastEventId: string | undefined;
  private readonly decoder = new TextDecoder();
  /** The pieces of the line being read, since the last line feed (joined once the line ends: a long line costs no more). */
  private line: string[] = [];
  /** The `data` lines of the event being read. */
  private data: string[] = [];

  constructor(private readonly id: string | number) {}

  read(chunk: Uint8Array): void {
    if (this.answered) return;
    const text = this.decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let lf = text.indexOf("\n"); lf !== -1; lf = text.indexOf("\n", start)) {
      this.line.push(text.slice(start, lf));
      const raw = this.line.join("");
      this.line = [];
      start = lf + 1;
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      if (line === "") this.endEvent();
      else if (line.startsWith("data:")) this.data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
      else if (line.startsWith("id:")) this.eventId(line.slice(line.startsWith("id: ") ? 4 : 3));
    }
    if (start < text.length) this.line.push(text.slice(start));
  }

  /** An empty id is ignored, as the SDK ignores it (it resumes from the latest id that was not empty). */
  private eventId(value: string): void {
    if (value !== "") this.lastEventId = value;
  }

  private endEvent(): void {
    const data = this.data.join("\n");
    this.data = [];
    if (data !== "" && this.answered === undefined) this.answered = answers(data, this.id);
  }
}

/** Whether the JSON `data` of one event holds an answer to request `id` (matched by number, as the SDK does), and which. */
function answers(data: string, id: string | number): "result" | "error" | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return undefined;
  }
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    if (typeof message !== "object" || message === null) continue;
    const answer = message as { id?: unknown };
    if (Number(answer.id) !== Number(id)) continue;
    if ("result" in answer) return "result";
    if ("error" in answer) return "error";
  }
  return undefined;
}

/** The event that answers request `id` with the marked error. */
function unansweredEvent(id: string | number): string {
  const error = {
    code: -32603,
    message: "the server's event stream for this request ended without its answer",
    data: { marker: UNANSWERED_STREAM_MARKER },
  };
  return `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id, error })}\n\n`;
}
