import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { describeMalformed } from "./malformed-message.js";
import { withoutNullInitializeFields, withoutNullMessageMembers } from "./null-fields.js";
import { requestId, requestMethod } from "./posted-request.js";
import { readServerJson } from "./server-json.js";
import { malformedAnswer, schemaProblem } from "./unreadable-message.js";

/**
 * A `fetch` for the Streamable HTTP client transport through which every
 * message of a response (a JSON body, or each event of an event stream)
 * reaches the SDK as one it reads:
 *
 * - members a server writes as null where the protocol takes only absent
 *   ones (Python's `None`) are left out (see `withoutNullMessageMembers`;
 *   of the answer to `initialize`, `withoutNullInitializeFields` too),
 *   and Python's `NaN` and `Infinity` are read as null (see `readServerJson`);
 * - a message the protocol's schema still refuses that answers the POST's
 *   request (its id, with a `result` or an `error`), or a JSON body that is
 *   no JSON, is replaced by a JSON-RPC error answer to the request, marked
 *   (`malformedAnswer`): the request fails at once as the server's
 *   malformed message;
 * - any other such message (a notification, an event that is no JSON) is
 *   left out, and `onUnreadable(text, problem)` is told.
 *
 * The SDK would report each as a transport error and drop it: its request
 * would wait for its timeout, and a JSON batch would lose every message it
 * held. Over HTTP each message is framed on its own, so one the client
 * cannot read puts nothing after it out of step: the session goes on.
 * Answers other than a 200 pass through.
 */
export function fetchReadableMessages(
  onUnreadable: (text: string, problem: string) => void,
  base: FetchLike,
): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    if (response.status !== 200 || response.body === null) return response;
    const id = init?.method === "POST" ? requestId(init.body) : undefined;
    const initialize = id !== undefined && requestMethod(init?.body) === "initialize";
    const type = response.headers.get("content-type") ?? "";
    // A JSON body answers an MCP request; other JSON (the OAuth flow's metadata and tokens) is not MCP's.
    if (type.includes("application/json") && id !== undefined) {
      const text = await response.text();
      return new Response(readableData(text, id, initialize, true, onUnreadable) ?? text, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    }
    if (!type.includes("text/event-stream")) return response;
    const events = new EventRewriter((data) => readableData(data, id, initialize, false, onUnreadable));
    const reader = response.body.getReader();
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        for (;;) {
          const { done, value } = await reader.read();
          const text = done ? events.end() : events.read(value);
          if (text !== "") controller.enqueue(encoder.encode(text));
          if (done) return controller.close();
          if (text !== "") return;
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/**
 * The JSON `text` of a body (`whole`: all the answer its POST gets) or of
 * an event as the SDK should read it; `""` to leave the event out;
 * `undefined` to keep it as it is.
 */
function readableData(
  text: string,
  id: string | number | undefined,
  initialize: boolean,
  whole: boolean,
  onUnreadable: (text: string, problem: string) => void,
): string | undefined {
  let parsed: unknown;
  let nonFinite: boolean;
  try {
    ({ value: parsed, nonFinite } = readServerJson(text));
  } catch (error) {
    if (id !== undefined && whole) return JSON.stringify(malformedAnswer(id, describeMalformed(error as Error)));
    onUnreadable(text, describeMalformed(error as Error));
    return "";
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  const readable = messages.flatMap((message) => {
    const read = initialize && answers(message, id!) ? initializeAnswer(message) : withoutNullMessageMembers(message);
    if (JSONRPCMessageSchema.safeParse(read).success) return [read];
    const problem = schemaProblem(read);
    if (id !== undefined && answers(read, id)) return [malformedAnswer(id, problem)];
    onUnreadable(JSON.stringify(message), problem);
    return [];
  });
  const unchanged = readable.length === messages.length && readable.every((read, index) => read === messages[index]);
  if (unchanged && !nonFinite) return undefined;
  if (!Array.isArray(parsed)) return readable.length === 0 ? "" : JSON.stringify(readable[0]);
  return JSON.stringify(readable);
}

/** The answer to `initialize` without its null members and its result's null fields (see `withoutNullInitializeFields`). */
function initializeAnswer(message: unknown): unknown {
  const read = withoutNullMessageMembers(message) as { result?: unknown };
  return read.result === undefined ? read : { ...read, result: withoutNullInitializeFields(read.result) };
}

/** Whether `message` is shaped as an answer to request `id` (matched by number, as the SDK matches). */
function answers(message: unknown, id: string | number): boolean {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return false;
  const answer = message as { id?: unknown };
  return ("result" in answer || "error" in answer) && Number(answer.id) === Number(id);
}

/**
 * Reads an event stream and gives it back event by event (an event is
 * given once its blank line came), each `message` event's data rewritten
 * by `rewrite` (`undefined`: kept; `""`: its data left out, its id kept; else its
 * one data line). The other lines of an event (`id`, `event`, `retry`,
 * comments) are kept.
 */
class EventRewriter {
  private readonly decoder = new TextDecoder();
  /** The pieces of the line being read, since the last line feed (joined once the line ends: a long line costs no more). */
  private line: string[] = [];
  /** The lines of the event being read, each with its line feed. */
  private lines: string[] = [];

  constructor(private readonly rewrite: (data: string) => string | undefined) {}

  /** The whole events `chunk` ended, rewritten. */
  read(chunk: Uint8Array): string {
    const text = this.decoder.decode(chunk, { stream: true });
    let given = "";
    let start = 0;
    for (let lf = text.indexOf("\n"); lf !== -1; lf = text.indexOf("\n", start)) {
      this.line.push(text.slice(start, lf + 1));
      const line = this.line.join("");
      this.line = [];
      start = lf + 1;
      if (line === "\n" || line === "\r\n") given += this.endEvent(line);
      else this.lines.push(line);
    }
    if (start < text.length) this.line.push(text.slice(start));
    return given;
  }

  /** What was left of the stream after its last whole event, as it came. */
  end(): string {
    const rest = this.lines.join("") + this.line.join("") + this.decoder.decode();
    this.lines = [];
    this.line = [];
    return rest;
  }

  private endEvent(blank: string): string {
    const lines = this.lines;
    this.lines = [];
    const field = (line: string, name: string) =>
      line.startsWith(name) && (line[name.length] === ":" || line.slice(name.length).trim() === "");
    const data = lines.filter((line) => field(line, "data")).map((line) => valueOf(line, "data"));
    const type = lines.find((line) => field(line, "event"));
    const isMessage = type === undefined || valueOf(type, "event") === "message";
    // An event without data (a priming event that gives the stream's first id, a keep-alive) is the SDK's to skip.
    const text = data.join("\n");
    const rewritten = text.trim() !== "" && isMessage ? this.rewrite(text) : undefined;
    if (rewritten === undefined) return lines.join("") + blank;
    const others = lines.filter((line) => !field(line, "data") && !field(line, "event")).join("");
    // An event left out keeps its id (the stream may be resumed from it), as an event without data.
    if (rewritten === "") return `${others}data:\n${blank}`;
    return `${others}event: message\ndata: ${rewritten}\n${blank}`;
  }
}

/** The value of an event's field line (`data: x` or `data:x`), without its line ending. */
function valueOf(line: string, name: string): string {
  const value = line.slice(name.length).replace(/\r?\n$/, "");
  if (!value.startsWith(":")) return "";
  return value.startsWith(": ") ? value.slice(2) : value.slice(1);
}
