/**
 * A model server on 127.0.0.1 for the fuzz, speaking OpenAI's chat
 * completions or responses API, Anthropic's messages API or Gemini's
 * generateContent API: each model request
 * takes the next planned answer (an event stream, an error status, a reset
 * or a hang), framed the way real servers and proxies frame them (CRLF
 * line ends, keep-alive comments, `data:` without a space, an event split
 * over several writes at any byte, a UTF-8 character included). It records
 * every request and whether its answer was finished, or ended early by the
 * client, so a run can check that no request outlives the turn that sent it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Model } from "@mariozechner/pi-ai";

/** Captured at load: the leak probes wrap the globals during runs, and the server's pauses are not the run's timers. */
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;

/** How the server writes an event stream's bytes. */
export interface SseFraming {
  /** Lines end with `\r\n` instead of `\n`. */
  crlf: boolean;
  /** A `: keep-alive` comment before every event. */
  comments: boolean;
  /** `data:{...}` without the space. */
  noSpace: boolean;
  /** Every event written in this many pieces (cut at seeded byte offsets), a macrotask apart. */
  pieces: number;
}

/** Which API the server speaks. */
export type HttpDialect = "openai-completions" | "openai-responses" | "anthropic-messages" | "google-generative-ai";

/** One server-sent event: its `event:` name (Anthropic names every event) and its JSON data. */
export interface SseEvent {
  name?: string;
  data: object;
}

/** How a streamed answer ends after its chunks. */
export type SseEnding =
  /** The end of the body (OpenAI's after `data: [DONE]`). */
  | { kind: "done" }
  /** The end of the body without OpenAI's `[DONE]` (many OpenAI-compatible servers). */
  | { kind: "endWithoutDone" }
  /** The socket is destroyed after `after` chunks. */
  | { kind: "reset"; after: number }
  /** Nothing more after `after` chunks; the connection stays open until the client leaves. */
  | { kind: "stall"; after: number }
  /** A line that is not JSON after `after` chunks. */
  | { kind: "malformed"; after: number }
  /** An error event after `after` chunks, as each API sends a failure mid-stream. */
  | { kind: "errorEvent"; after: number; message: string };

/** One planned answer to one model request. */
export type PlannedAnswer =
  | { kind: "sse"; chunks: readonly SseEvent[]; ending: SseEnding; pauseMs: number }
  | { kind: "status"; status: number; body: string; contentType: string }
  | { kind: "reset" }
  | { kind: "hang" };

/** What the server saw of one request. */
export interface ServedRequest {
  /** Which planned answer it got (`undefined`: the plan had run out, it got a 500). */
  answer: PlannedAnswer["kind"] | undefined;
  /** `finished`: the whole answer was written; `left`: the client closed first; `open`: neither yet. */
  state: "open" | "finished" | "left";
}

/** A running {@link startHttpProviderServer}. */
export interface HttpProviderServer {
  /** The model's base URL: `http://127.0.0.1:PORT` for Anthropic's API, `http://127.0.0.1:PORT/v1` for the others. */
  readonly baseUrl: string;
  readonly requests: readonly ServedRequest[];
  /** Stops listening and destroys every connection. */
  close(): Promise<void>;
}

/** Anthropic's error type for a failure whose text starts with its status (`api_error`, its 500, otherwise). */
function anthropicErrorType(message: string): string {
  const types: Record<string, string> = {
    "400": "invalid_request_error",
    "401": "authentication_error",
    "403": "permission_error",
    "404": "not_found_error",
    "413": "request_too_large",
    "429": "rate_limit_error",
    "503": "overloaded_error",
    "529": "overloaded_error",
  };
  return types[/^\d{3}/.exec(message)?.[0] ?? ""] ?? "api_error";
}

/** The code of a responses-API error event for a failure whose text starts with its status. */
function responsesErrorCode(message: string): string {
  return message.startsWith("429") ? "rate_limit_exceeded" : "server_error";
}

/** Gemini's status name for an error code, as its errors carry beside the code. */
function googleStatusName(code: number): string {
  const names: Record<number, string> = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
  };
  return names[code] ?? "INTERNAL";
}

/** Gemini's JSON error for a failure whose text may start with its status (500 otherwise). */
export function googleError(message: string): object {
  const code = Number(/^\d{3}/.exec(message)?.[0] ?? 500);
  return { error: { code, message, status: googleStatusName(code) } };
}

/** A seeded generator of numbers in [0, 1). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Starts the server with its plan: the n-th request gets `plan[n]`. */
export async function startHttpProviderServer(
  dialect: HttpDialect,
  plan: readonly PlannedAnswer[],
  framing: SseFraming,
  seed: number,
): Promise<HttpProviderServer> {
  const openai = dialect === "openai-completions";
  const responses = dialect === "openai-responses";
  const google = dialect === "google-generative-ai";
  const random = seeded(seed);
  const requests: ServedRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let next = 0;
  const later = (ms: number, fn: () => void) => {
    const timer = realSetTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };
  const eol = framing.crlf ? "\r\n" : "\n";
  // Google's SDK reads an event only when it starts with `data:`, so its keep-alive comments are blocks of their own.
  const comment = framing.comments ? `: keep-alive${eol}${google ? eol : ""}` : "";
  const event = (data: string, name?: string) =>
    `${comment}${name === undefined ? "" : `event: ${name}${eol}`}data:${framing.noSpace ? "" : " "}${data}${eol}${eol}`;
  const errorEvent = (message: string) =>
    openai
      ? event(JSON.stringify({ error: { message, type: "server_error", code: null } }))
      : responses
        ? event(JSON.stringify({ type: "error", code: responsesErrorCode(message), message, param: null }), "error")
        : event(JSON.stringify({ type: "error", error: { type: anthropicErrorType(message), message } }), "error");
  const malformedEvent = openai
    ? event('{"choices": [{"delta": {"content": "cut')
    : google
      ? event('{"candidates": [{"content": {"parts": [{"text": "cut')
      : responses
        ? event('{"type": "response.output_text.delta", "delta": "cut', "response.output_text.delta")
        : event(
            '{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "cut',
            "content_block_delta",
          );

  /** Writes `text` in the framing's pieces, then calls `done` (not when the client left). */
  const writePieces = (res: ServerResponse, text: string, done: () => void) => {
    const bytes = Buffer.from(text, "utf8");
    const cuts = [...new Set(Array.from({ length: framing.pieces - 1 }, () => Math.floor(random() * bytes.length)))]
      .filter((cut) => cut > 0)
      .sort((a, b) => a - b);
    const parts = [...cuts, bytes.length].map((end, index) => bytes.subarray(index === 0 ? 0 : cuts[index - 1], end));
    const step = (index: number) => {
      if (res.destroyed) return;
      if (index >= parts.length) return done();
      res.write(parts[index]);
      if (index + 1 < parts.length) setImmediate(() => step(index + 1));
      else done();
    };
    step(0);
  };

  const stream = (answer: Extract<PlannedAnswer, { kind: "sse" }>, res: ServerResponse, socket: Socket) => {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.flushHeaders();
    const { ending } = answer;
    const send = (index: number) => {
      if (res.destroyed) return;
      const after = "after" in ending ? ending.after : Number.POSITIVE_INFINITY;
      if (index >= Math.min(after, answer.chunks.length)) {
        switch (ending.kind) {
          case "done":
            return openai ? writePieces(res, event("[DONE]"), () => res.end()) : res.end();
          case "endWithoutDone":
            return res.end();
          case "reset":
            return void socket.destroy();
          case "stall":
            return;
          case "malformed":
            return writePieces(res, malformedEvent, () => res.end());
          case "errorEvent":
            // Gemini fails a stream with its JSON error alone, not as an event, and Google's SDK reads it only as one read.
            if (google) return void res.end(JSON.stringify(googleError(ending.message)));
            return writePieces(res, errorEvent(ending.message), () => res.end());
        }
      }
      const { name, data } = answer.chunks[index]!;
      const go = () => writePieces(res, event(JSON.stringify(data), name), () => send(index + 1));
      if (answer.pauseMs > 0) later(answer.pauseMs, go);
      else setImmediate(go);
    };
    send(0);
  };

  const answer = (req: IncomingMessage, res: ServerResponse) => {
    const planned = plan[next++];
    const served: ServedRequest = { answer: planned?.kind, state: "open" };
    requests.push(served);
    res.on("finish", () => {
      if (served.state === "open") served.state = "finished";
    });
    res.on("close", () => {
      if (served.state === "open") served.state = "left";
    });
    const route = openai
      ? "/v1/chat/completions"
      : responses
        ? "/v1/responses"
        : google
          ? "/v1/models/fuzz-http-model:streamGenerateContent"
          : "/v1/messages";
    if (req.method !== "POST" || req.url?.split("?")[0] !== route) {
      res.writeHead(404, { "content-type": "application/json" });
      return res.end(JSON.stringify({ error: { message: `No route ${req.method} ${req.url}` } }));
    }
    if (!planned) {
      res.writeHead(500, { "content-type": "application/json" });
      return res.end(JSON.stringify({ error: { message: "The fuzz server has no planned answer left" } }));
    }
    switch (planned.kind) {
      case "hang":
        return;
      case "reset":
        return void req.socket.destroy();
      case "status":
        res.writeHead(planned.status, { "content-type": planned.contentType });
        return res.end(planned.body);
      case "sse":
        return stream(planned, res, req.socket);
    }
  };

  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => answer(req, res));
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: dialect === "anthropic-messages" ? `http://127.0.0.1:${port}` : `http://127.0.0.1:${port}/v1`,
    requests,
    close: async () => {
      for (const timer of timers) realClearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A pi-ai model that sends to `baseUrl` through pi-ai's own provider for `dialect`. */
export function httpProviderModel(dialect: HttpDialect, baseUrl: string): Model<HttpDialect> {
  return {
    id: "fuzz-http-model",
    name: "Fuzz HTTP model",
    api: dialect,
    provider: "turnkit-fuzz-http",
    baseUrl,
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 128_000,
    maxTokens: 16_384,
  };
}
