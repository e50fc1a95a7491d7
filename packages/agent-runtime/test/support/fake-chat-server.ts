/**
 * A fake OpenAI chat-completions server on 127.0.0.1 for tests that run
 * pi-ai's real openai-completions provider: each request takes the next
 * scripted reply (a streamed text answer with the usage the provider
 * reports, or an error status with a body). Closed after each test.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Model } from "@mariozechner/pi-ai";
import { afterEach } from "vitest";

/** One scripted reply. */
export type Reply =
  | { type: "text"; text: string; promptTokens: number; completionTokens: number }
  | { type: "status"; status: number; message: string; headers?: Record<string, string> };

/** What the server saw of one request: the parsed JSON body. */
export interface ReceivedRequest {
  body: { messages: Array<{ role: string; content: unknown }>; max_tokens?: number; max_completion_tokens?: number };
}

/** A running fake server. */
export interface FakeChatServer {
  /** `http://127.0.0.1:PORT/v1`. */
  readonly baseUrl: string;
  /** Every request, in order. */
  readonly requests: ReceivedRequest[];
}

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

/** Starts a server answering `replies` in order (a 500 past the end); it is closed after the test. */
export async function serveChat(...replies: Reply[]): Promise<FakeChatServer> {
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      requests.push({ body: JSON.parse(Buffer.concat(parts).toString("utf8")) });
      const reply = replies.shift();
      if (!reply) return sendJson(res, 500, { error: { message: "no scripted reply left" } });
      if (reply.type === "status") {
        return sendJson(res, reply.status, { error: { message: reply.message, type: "fake_error" } }, reply.headers);
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      for (const chunk of textChunks(reply)) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      res.end("data: [DONE]\n\n");
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  open.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests };
}

/** Builders for replies. */
export const reply = {
  text: (text: string, promptTokens = 11, completionTokens = 3): Reply => ({
    type: "text",
    text,
    promptTokens,
    completionTokens,
  }),
  status: (status: number, message: string, headers?: Record<string, string>): Reply => ({
    type: "status",
    status,
    message,
    headers,
  }),
};

/** A pi-ai model that talks to `baseUrl` through the real openai-completions provider. */
export function fakeModel(baseUrl: string, contextWindow: number): Model<"openai-completions"> {
  return {
    id: "fake-model",
    name: "Fake model",
    api: "openai-completions",
    provider: "openai",
    baseUrl,
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow,
    maxTokens: 16_384,
  };
}

function textChunks(reply: Extract<Reply, { type: "text" }>): object[] {
  const base = { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1_700_000_000, model: "fake-model" };
  return [
    { ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: { content: reply.text }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    {
      ...base,
      choices: [],
      usage: {
        prompt_tokens: reply.promptTokens,
        completion_tokens: reply.completionTokens,
        total_tokens: reply.promptTokens + reply.completionTokens,
      },
    },
  ];
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}
