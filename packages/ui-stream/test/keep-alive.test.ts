/*
 * A turn's stream that goes silent (a long tool, an approval waiting)
 * sends keep-alive comments, and the AI SDK's own client, with
 * `DefaultChatTransport` over real HTTP on 127.0.0.1, shows the same
 * message as without them.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { response, runScriptedTurn } from "@turnkit/agent-core/testing";
import type { RuntimeEvent } from "@turnkit/protocol";
import { DefaultChatTransport } from "ai";
import { beforeAll, describe, expect, it, onTestFinished } from "vitest";
import {
  KEEP_ALIVE_COMMENT,
  type SequencedUIMessageChunk,
  readSseEvents,
  toUIMessageChunks,
  toUIMessageStreamResponse,
  toUIMessageStreamSse,
} from "../src/index.js";
import { readWithAiSdk, textOf } from "./support/ai-sdk-reader.js";
import { HeadlessChat } from "./support/headless-chat.js";

let events: RuntimeEvent[];

beforeAll(async () => {
  const turn = await runScriptedTurn({ script: [response("one two three", { eventDelayMs: 0 })] });
  events = [...turn.events];
});

/** The turn's chunks, with a silence of `pauseMs` after the first `pauseAfter` chunks (a tool running, an approval waiting). */
async function* pausedChunks(pauseAfter: number, pauseMs: number): AsyncGenerator<SequencedUIMessageChunk> {
  let sent = 0;
  for await (const chunk of toUIMessageChunks(events)) {
    if (sent++ === pauseAfter) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    yield chunk;
  }
}

/** The body's bytes, whole. */
async function bodyText(body: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(body).text();
}

describe("keep-alive comments on a silent stream", () => {
  it("go while no chunk comes, only then, and the AI SDK's parser, readSseEvents and the message ignore them", async () => {
    const quiet = await bodyText(toUIMessageStreamSse(toUIMessageChunks(events)));
    // The turn goes silent after two chunks until the reader has seen two comments.
    let endSilence!: () => void;
    const silence = new Promise<void>((resolve) => (endSilence = resolve));
    async function* gated(): AsyncGenerator<SequencedUIMessageChunk> {
      let sent = 0;
      for await (const chunk of toUIMessageChunks(events)) {
        if (sent++ === 2) await silence;
        yield chunk;
      }
    }
    const reader = toUIMessageStreamSse(gated(), { keepAliveMs: 5 }).getReader();
    const blocks: string[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      blocks.push(new TextDecoder().decode(value));
      if (blocks.filter((block) => block === KEEP_ALIVE_COMMENT).length === 2) endSilence();
    }
    const kept = blocks.join("");
    expect(blocks.slice(2, 4)).toEqual([KEEP_ALIVE_COMMENT, KEEP_ALIVE_COMMENT]);
    expect(kept.replaceAll(KEEP_ALIVE_COMMENT, "")).toBe(quiet);

    const withComments = await readWithAiSdk(new Response(kept).body!);
    const without = await readWithAiSdk(new Response(quiet).body!);
    expect(withComments.errors).toEqual([]);
    expect(withComments.chunks).toEqual(without.chunks);
    expect(withComments.message).toEqual(without.message);
    const read: unknown[] = [];
    for await (const event of readSseEvents(new Response(kept).body!)) read.push(event);
    expect(read.length).toBe(quiet.split("\n\n").filter((block) => block !== "").length);
  });

  it("are off with keepAliveMs 0; a bad keepAliveMs is a TypeError naming it", async () => {
    const body = await bodyText(toUIMessageStreamSse(pausedChunks(1, 40), { keepAliveMs: 0 }));
    expect(body).not.toContain(": keep-alive");
    for (const keepAliveMs of [-1, Number.NaN, Number.POSITIVE_INFINITY, "15" as unknown as number])
      expect(() => toUIMessageStreamSse(toUIMessageChunks(events), { keepAliveMs })).toThrow(
        /keepAliveMs must be a finite number/,
      );
    // A value that has no text (an object without a prototype) is named by its kind, not the engine's text.
    expect(() =>
      toUIMessageStreamSse(toUIMessageChunks(events), { keepAliveMs: [Object.create(null)] as unknown as number }),
    ).toThrow(/keepAliveMs must be a finite number of milliseconds, 0 or more \(0: no keep-alive\), got an array$/);
  });

  it("stop when the client goes away: no comment is written to a cancelled stream", async () => {
    const silent: AsyncIterable<SequencedUIMessageChunk> = {
      [Symbol.asyncIterator]: () => ({
        next: () => new Promise(() => {}), // a turn waiting for a person
        return: async () => ({ done: true, value: undefined }),
      }),
    };
    const reader = toUIMessageStreamSse(silent, { keepAliveMs: 5 }).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe(KEEP_ALIVE_COMMENT);
    await reader.cancel();
    // A comment enqueued after the cancel would throw in a timer: an uncaught error, which fails the run.
    await new Promise((resolve) => setTimeout(resolve, 30));
  });

  it("useChat's DefaultChatTransport, over HTTP, shows the turn's message with comments in its silence", async () => {
    const server = createServer((req, res) => {
      const served = toUIMessageStreamResponse(pausedChunks(3, 60), { keepAliveMs: 10 });
      res.writeHead(served.status, Object.fromEntries(served.headers));
      Readable.fromWeb(served.body! as never).pipe(res);
      req.resume();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;

    const chat = new HeadlessChat({
      id: "chat-1",
      transport: new DefaultChatTransport({ api: `http://127.0.0.1:${port}/chat` }),
    });
    await chat.sendMessage({ text: "count to three" });
    expect([chat.status, chat.error?.message]).toEqual(["ready", undefined]);
    expect(textOf(chat.messages[1]!)).toBe("one two three");
  });
});
