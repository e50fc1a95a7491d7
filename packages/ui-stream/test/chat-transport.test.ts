/*
 * TurnkitChatTransport driven by the AI SDK's chat core (what useChat
 * wraps) against a small HTTP server serving a real turn's stream: a
 * connection dropped mid-stream is resumed after the last whole event
 * (Last-Event-ID) and the page's message reads exactly once; a page load
 * resumes a running turn by replay, or finds none (204); refusals are
 * typed errors.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { abortListenerCount, response, runScriptedTurn } from "@turnkit/agent-core/testing";
import type { RuntimeEvent } from "@turnkit/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  TURN_ID_HEADER,
  TurnkitChatTransport,
  UIStreamError,
  toUIMessageChunks,
  toUIMessageStreamSse,
} from "../src/index.js";
import { HeadlessChat } from "./support/headless-chat.js";
import { textOf } from "./support/ai-sdk-reader.js";

let events: RuntimeEvent[];
let server: Server;
let api: string;
const requests: { method: string; url: string; lastEventId?: string; authorization?: string; body?: any }[] = [];
/** Drop the first POST's connection after the event with this seq (0: never). */
let dropAfterSeq = 0;
/** Drop the first POST's connection after this many SSE blocks (chunks), wherever it falls (0: never; -1: before any). */
let dropAfterBlocks = 0;
let running = true;

async function readBody(req: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of req) body += chunk;
  return body;
}

async function serveTurn(res: ServerResponse, afterSeq: number, dropAfter: number, dropAfterBlockCount = 0) {
  res.writeHead(200, { "content-type": "text/event-stream", [TURN_ID_HEADER]: "turn-1" });
  if (dropAfterBlockCount < 0) {
    // A queued turn: the headers go, then nothing until the network drops.
    res.flushHeaders();
    await new Promise((resolve) => setTimeout(resolve, 20));
    return void res.destroy();
  }
  const reader = toUIMessageStreamSse(toUIMessageChunks(events, { afterSeq })).getReader();
  for (let blocks = 1; ; blocks++) {
    const { done, value } = await reader.read();
    if (done) break;
    res.write(value);
    const id = /^id: (\d+)$/m.exec(new TextDecoder().decode(value));
    if ((dropAfter && id && Number(id[1]) >= dropAfter) || blocks === dropAfterBlockCount) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      res.destroy(); // the network drops: no [DONE]
      return;
    }
  }
  res.end();
}

beforeAll(async () => {
  const turn = await runScriptedTurn({
    script: [response("one two three four five six seven eight nine ten", { eventDelayMs: 0 })],
  });
  events = [...turn.events];
  server = createServer(async (req, res) => {
    const entry = {
      method: req.method!,
      url: req.url!,
      lastEventId: req.headers["last-event-id"] as string | undefined,
      authorization: req.headers.authorization,
      body: req.method === "POST" ? JSON.parse(await readBody(req)) : undefined,
    };
    requests.push(entry);
    if (entry.authorization !== "Bearer secret") return void res.writeHead(401).end("who are you?");
    if (req.method === "POST") return serveTurn(res, 0, dropAfterSeq, dropAfterBlocks);
    if (!entry.lastEventId && !running && !entry.url.includes("?turnId=")) return void res.writeHead(204).end();
    return serveTurn(res, Number(entry.lastEventId ?? 0), 0);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/chat`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const transport = (token = "secret") =>
  new TurnkitChatTransport({ api, headers: () => ({ authorization: `Bearer ${token}` }), reconnectDelayMs: 5 });

describe("TurnkitChatTransport under the AI SDK's chat core", () => {
  it("a connection dropped mid-stream resumes after the last whole event; the message reads once", async () => {
    requests.length = 0;
    const textSeqs = events
      .filter((e) => e.type === "stream.resp" && e.payload.chunk.kind === "text")
      .map((e) => e.seq);
    dropAfterSeq = textSeqs[3];
    const chat = new HeadlessChat({ id: "chat-1", transport: transport() });
    await chat.sendMessage({ text: "count to ten" });
    expect(chat.status).toBe("ready");
    expect(chat.error).toBeUndefined();
    expect(chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(textOf(chat.messages[1])).toBe("one two three four five six seven eight nine ten");
    expect(chat.messages[1].metadata).toMatchObject({ status: "completed", turnId: "turn-1" });
    expect(requests.map((r) => [r.method, r.url, r.lastEventId])).toEqual([
      ["POST", "/chat", undefined],
      ["GET", "/chat/chat-1/stream?turnId=turn-1", String(dropAfterSeq)],
    ]);
    // Only the new message is sent: the server keeps the history.
    expect(requests[0].body).toMatchObject({ id: "chat-1", trigger: "submit-message", messages: [{ role: "user" }] });
    expect(requests[0].body.messages).toHaveLength(1);
    dropAfterSeq = 0;
  });

  it("a connection dropped between two chunks of one event resumes without repeating them: no reader error, the message reads once", async () => {
    const wire = await new Response(toUIMessageStreamSse(toUIMessageChunks(events))).text();
    const blocks = wire.split("\n\n").filter((block) => block !== "" && block !== "data: [DONE]");
    const whole = new HeadlessChat({ id: "chat-1", transport: transport() });
    await whole.sendMessage({ text: "count to ten" });
    // Every place where the drop falls inside an event: the block sent last has no id.
    const inside = blocks.flatMap((block, index) => (/^id: /m.test(block) ? [] : [index + 1]));
    expect(inside.length).toBeGreaterThan(3);
    for (const cut of inside) {
      dropAfterBlocks = cut;
      requests.length = 0;
      const chat = new HeadlessChat({ id: "chat-1", transport: transport() });
      await chat.sendMessage({ text: "count to ten" });
      expect([cut, chat.status, chat.error?.message]).toEqual([cut, "ready", undefined]);
      expect(requests.map((r) => r.method)).toEqual(["POST", "GET"]);
      expect(chat.messages[1]).toEqual(whole.messages[1]);
    }
    dropAfterBlocks = 0;
  });

  it("a connection dropped before the first chunk (a queued turn) resumes that turn, named by the response's header", async () => {
    dropAfterBlocks = -1;
    requests.length = 0;
    const chat = new HeadlessChat({ id: "chat-1", transport: transport() });
    await chat.sendMessage({ text: "count to ten" });
    dropAfterBlocks = 0;
    expect([chat.status, chat.error?.message]).toEqual(["ready", undefined]);
    expect(requests.map((r) => [r.method, r.url, r.lastEventId])).toEqual([
      ["POST", "/chat", undefined],
      ["GET", "/chat/chat-1/stream?turnId=turn-1", "0"],
    ]);
    expect(textOf(chat.messages[1])).toBe("one two three four five six seven eight nine ten");
  });

  it("onTurn names a queued turn before its first chunk (a page stops it by that id), once over reconnects", async () => {
    dropAfterBlocks = -1;
    const announced: { turnId: string; chatId: string; chunksBefore: number }[] = [];
    let chat: HeadlessChat | undefined;
    const announcing = new TurnkitChatTransport({
      api,
      headers: { authorization: "Bearer secret" },
      reconnectDelayMs: 5,
      onTurn: (turn) => announced.push({ ...turn, chunksBefore: chat!.messages.length }),
    });
    chat = new HeadlessChat({ id: "chat-1", transport: announcing });
    await chat.sendMessage({ text: "count to ten" });
    dropAfterBlocks = 0;
    expect(announced).toEqual([{ chatId: "chat-1", turnId: "turn-1", chunksBefore: 1 }]);
    expect(textOf(chat.messages[1])).toBe("one two three four five six seven eight nine ten");
  });

  it("a page load resumes the running turn by replay onto the same message, or finds none running", async () => {
    running = true;
    const chat = new HeadlessChat({ id: "chat-1", transport: transport() });
    await chat.resumeStream();
    expect(chat.messages.map((m) => m.id)).toEqual(["turn-1"]);
    // Replayed again (the page reloaded twice): still one message, its text once.
    await chat.resumeStream();
    expect(chat.messages.map((m) => m.id)).toEqual(["turn-1"]);
    expect(textOf(chat.messages[0])).toBe("one two three four five six seven eight nine ten");
    running = false;
    const idle = new HeadlessChat({ id: "chat-1", transport: transport() });
    await idle.resumeStream();
    expect(idle.messages).toEqual([]);
    expect(idle.status).toBe("ready");
    // Asked for by id, a turn is streamed whether or not it still runs.
    requests.length = 0;
    await idle.resumeStream({ body: { turnId: "turn-1" } });
    expect(requests.map((r) => r.url)).toEqual(["/chat/chat-1/stream?turnId=turn-1"]);
    expect(textOf(idle.messages[0])).toBe("one two three four five six seven eight nine ten");
  });

  it("a refused request is a UIStreamError with the status and the server's words", async () => {
    const errors: Error[] = [];
    const chat = new HeadlessChat({ id: "chat-1", transport: transport("wrong"), onError: (e) => errors.push(e) });
    await chat.sendMessage({ text: "hi" });
    expect(chat.status).toBe("error");
    expect(errors).toHaveLength(1);
    expect(UIStreamError.isInstance(errors[0])).toBe(true);
    expect(errors[0]).toMatchObject({
      code: "http_status",
      status: 401,
      message: "the chat server answered 401: who are you?",
    });
  });

  it("reconnects on the host's signal leave no listener on it: each wait before a reconnect lets go of the signal", async () => {
    const sse = await new Response(toUIMessageStreamSse(toUIMessageChunks(events))).text();
    const blocks = sse.split("\n\n").filter((block) => block !== "");
    const firstEventSeq = /^id: (\d+)$/m.exec(blocks[0]!)![1];
    let gets = 0;
    // The connection drops after the first event; the next three resumes fail on the network, the fourth answers.
    const fetch = async (_input: unknown, init?: { method?: string }) => {
      if (init?.method === "POST") {
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(`${blocks[0]}\n\n`));
            controller.error(new TypeError("network dropped"));
          },
        });
        return new Response(body, { headers: { "content-type": "text/event-stream", [TURN_ID_HEADER]: "turn-1" } });
      }
      if (++gets <= 3) throw new TypeError("network unreachable");
      const rest = toUIMessageStreamSse(toUIMessageChunks(events, { afterSeq: Number(firstEventSeq) }));
      return new Response(rest, { headers: { "content-type": "text/event-stream" } });
    };
    const { signal } = new AbortController();
    const chunks = await new TurnkitChatTransport({ api, fetch, reconnectDelayMs: 1 }).sendMessages({
      trigger: "submit-message",
      chatId: "chat-1",
      messageId: undefined,
      messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "count to ten" }] }],
      abortSignal: signal,
    });
    const read: { type: string }[] = [];
    for await (const chunk of chunks as unknown as AsyncIterable<{ type: string }>) read.push(chunk);
    expect(gets).toBe(4);
    expect(read.at(-1)?.type).toBe("finish");
    expect(abortListenerCount(signal)).toBe(0);
  });
});
