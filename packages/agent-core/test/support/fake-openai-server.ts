import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Model } from "@mariozechner/pi-ai";

/**
 * One scripted reply of the fake server. Each request takes the next step of
 * the script; a request past its end gets a 500.
 *
 * - `sse`: a 200 event stream of `chunks` (chat.completion.chunk objects),
 *   then `data: [DONE]`. `pauses[i]` waits that many ms before chunk `i`;
 *   `stallAfter: n` sends `n` chunks and then nothing, keeping the
 *   connection open (a hang mid-stream); `resetAfter: n` sends `n` chunks and
 *   then destroys the socket.
 * - `status`: an error status with an OpenAI-style JSON body (`message` is
 *   the error text; `body` replaces the whole body: an object is sent as
 *   JSON, a string as it is (`text/plain` unless `headers` name another
 *   content type), `null` sends none) and optional headers such as
 *   `Retry-After`.
 * - `reset`: destroys the socket before any byte is sent.
 * - `hang`: never answers (a hang before the first byte).
 */
export type ScriptStep =
  | {
      type: "sse";
      chunks: readonly object[];
      pauses?: Readonly<Record<number, number>>;
      stallAfter?: number;
      resetAfter?: number;
    }
  | { type: "status"; status: number; message?: string; body?: unknown; headers?: Record<string, string> }
  | { type: "reset" }
  | { type: "hang" };

/** What the server saw of one request. */
export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body. */
  body: any;
}

export interface FakeOpenAIServer {
  /** `http://127.0.0.1:PORT/v1`, for a model's `baseUrl`. */
  readonly baseUrl: string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Appends steps to the script. */
  enqueue(...steps: ScriptStep[]): void;
  /** Resolves once `count` requests have arrived. */
  waitForRequests(count: number): Promise<void>;
  /** Stops listening and destroys every open connection (hung ones included). */
  close(): Promise<void>;
}

/** Starts a fake OpenAI chat-completions server on 127.0.0.1, on a free port. */
export async function startFakeOpenAIServer(script: readonly ScriptStep[] = []): Promise<FakeOpenAIServer> {
  const steps = [...script];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const waiters: Array<{ count: number; resolve: () => void }> = [];

  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      const text = Buffer.concat(parts).toString("utf8");
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = text;
      }
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      for (const waiter of [...waiters]) {
        if (requests.length >= waiter.count) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
      // Anthropic's /messages and OpenAI's /responses are routed too, for failures: each SDK writes its own error text.
      const routed = ["/chat/completions", "/messages", "/responses", ":streamGenerateContent"].some((path) =>
        req.url?.split("?")[0]!.endsWith(path),
      );
      if (req.method !== "POST" || !routed) {
        return sendJson(res, 404, { error: { message: `No route ${req.method} ${req.url}` } });
      }
      const step = steps.shift();
      if (!step) return sendJson(res, 500, { error: { message: "The fake server has no scripted response left" } });
      play(step, res, req.socket);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

  const play = (step: ScriptStep, res: ServerResponse, socket: Socket) => {
    switch (step.type) {
      case "hang":
        return;
      case "reset":
        socket.destroy();
        return;
      case "status": {
        const body =
          step.body !== undefined
            ? step.body
            : { error: { message: step.message ?? `status ${step.status}`, type: "fake_error", code: null } };
        if (body === null) {
          res.writeHead(step.status, { ...step.headers });
          res.end();
          return;
        }
        if (typeof body === "string") {
          res.writeHead(step.status, { "content-type": "text/plain; charset=utf-8", ...step.headers });
          res.end(body);
          return;
        }
        return sendJson(res, step.status, body, step.headers);
      }
      case "sse": {
        res.writeHead(200, {
          "content-type": "text/event-stream",
          "cache-control": "no-cache",
          connection: "keep-alive",
        });
        res.flushHeaders();
        let index = 0;
        const next = () => {
          if (res.destroyed) return;
          if (step.resetAfter !== undefined && index >= step.resetAfter) {
            socket.destroy();
            return;
          }
          if (step.stallAfter !== undefined && index >= step.stallAfter) return;
          if (index >= step.chunks.length) {
            res.end("data: [DONE]\n\n");
            return;
          }
          const chunk = step.chunks[index];
          const pause = step.pauses?.[index] ?? 0;
          const send = () => {
            if (res.destroyed) return;
            res.write(`data: ${JSON.stringify(chunk)}\n\n`);
            index += 1;
            setImmediate(next);
          };
          if (pause > 0) later(pause, send);
          else send();
        };
        next();
        return;
      }
    }
  };

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...more) => {
      steps.push(...more);
    },
    waitForRequests: (count) =>
      requests.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve })),
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Builders for scripted replies. */
export const reply = {
  /** A streamed text answer: role chunk, one chunk per piece, finish chunk, usage chunk. */
  text(
    pieces: string | readonly string[],
    options: Omit<Extract<ScriptStep, { type: "sse" }>, "type" | "chunks"> = {},
  ): ScriptStep {
    return { type: "sse", chunks: textChunks(pieces), ...options };
  },
  status(status: number, message?: string, headers?: Record<string, string>): ScriptStep {
    return { type: "status", status, message, headers };
  },
  reset(): ScriptStep {
    return { type: "reset" };
  },
  hang(): ScriptStep {
    return { type: "hang" };
  },
};

/** The chat.completion.chunk objects of a streamed text answer (including a final usage chunk). */
export function textChunks(pieces: string | readonly string[]): object[] {
  const list = typeof pieces === "string" ? [pieces] : pieces;
  const base = { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1_700_000_000, model: "fake-model" };
  return [
    { ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] },
    ...list.map((content) => ({ ...base, choices: [{ index: 0, delta: { content }, finish_reason: null }] })),
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    {
      ...base,
      choices: [],
      usage: { prompt_tokens: 11, completion_tokens: list.length, total_tokens: 11 + list.length },
    },
  ];
}

/** A pi-ai model that talks to `baseUrl` through the real openai-completions provider. */
export function fakeModel(
  baseUrl: string,
  overrides: Partial<Model<"openai-completions">> = {},
): Model<"openai-completions"> {
  return {
    id: "fake-model",
    name: "Fake model",
    api: "openai-completions",
    provider: "openai",
    baseUrl,
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 128_000,
    maxTokens: 16_384,
    ...overrides,
  };
}
