import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { requestId } from "./posted-request.js";

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
 * of a stateless server (one that gave no session id) whose POST's event
 * stream ended without its answer, so that the request fails at once
 * instead of after `callTimeoutMs`.
 *
 * The answer to a POSTed request comes on that POST's own event stream.
 * When the stream ends cleanly without it, and without an event id (which
 * would let the SDK reopen the stream from there and get the answer
 * later), the answer can no longer come, but the SDK keeps waiting for it.
 * A session has its own event stream, whose loss says when the server went
 * away (a server shutting down ends its streams cleanly): there the call
 * fails with that loss, and `stateless()` is false. A stateless server has
 * no other stream, so for it the answer stream is ended here with one
 * more event: a JSON-RPC error answer
 * for the request, its `data` marked ({@link isUnansweredStreamMarker}).
 * It comes after every event the server sent, so a request the server did
 * answer never sees it (the SDK drops an answer to a request no longer
 * waiting, as it does for one cancelled meanwhile). Only whole events (ended
 * by a blank line) count as the server's answer. A stream that breaks is
 * left as it broke, and other answers pass through.
 */
export function fetchEndingUnansweredStreams(stateless: () => boolean, base: FetchLike): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    const id = init?.method === "POST" ? requestId(init.body) : undefined;
    const eventStream = response.headers.get("content-type")?.includes("text/event-stream") ?? false;
    if (id === undefined || response.status !== 200 || response.body === null || !eventStream) return response;
    const watch = new AnswerWatch(id);
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (!done) {
          watch.read(value);
          return controller.enqueue(value);
        }
        if (!watch.answered && !watch.resumable && stateless()) controller.enqueue(unansweredEvent(id));
        controller.close();
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** Reads an event stream as it passes: whether it answered request `id`, and whether any event had an id. */
class AnswerWatch {
  answered = false;
  resumable = false;
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
      else if (line.startsWith("id:")) this.resumable = true;
    }
    if (start < text.length) this.line.push(text.slice(start));
  }

  private endEvent(): void {
    const data = this.data.join("\n");
    this.data = [];
    if (data !== "" && answers(data, this.id)) this.answered = true;
  }
}

/** Whether the JSON `data` of one event holds an answer to request `id` (matched by number, as the SDK does). */
function answers(data: string, id: string | number): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return false;
  }
  return (Array.isArray(parsed) ? parsed : [parsed]).some((message) => {
    if (typeof message !== "object" || message === null) return false;
    const answer = message as { id?: unknown };
    return ("result" in answer || "error" in answer) && Number(answer.id) === Number(id);
  });
}

/** The event that answers request `id` with the marked error. */
function unansweredEvent(id: string | number): Uint8Array {
  const error = {
    code: -32603,
    message: "the server's event stream for this request ended without its answer",
    data: { marker: UNANSWERED_STREAM_MARKER },
  };
  return new TextEncoder().encode(`event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id, error })}\n\n`);
}
