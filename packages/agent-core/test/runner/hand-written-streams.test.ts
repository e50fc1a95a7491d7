/**
 * A stream function may answer a stream a host wrote by hand instead of
 * pi-ai's: an async iterable whose iterator's `next()` throws, answers a
 * plain result or `null` instead of a promise, whose `[Symbol.asyncIterator]`
 * cannot be called, or that has an `end()` of its own that throws or does
 * nothing. Whatever it does, the turn settles (with the retry layer on or
 * off), fails naming what was wrong in its own words, and the host process
 * survives a watchdog that gives up on such a stream.
 */
import {
  type AssistantMessage,
  type AssistantMessageEvent,
  createAssistantMessageEventStream,
} from "@mariozechner/pi-ai";
import { PiTurnRunner } from "@turnkit/agent-core";
import { createVirtualClock, revokedProxy } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import type { StreamFn } from "../../src/call-stack/stream-fn.js";
import { createRecordingEventWriter } from "../../src/testing/index.js";

const ENGINE_TEXT = /Cannot read properties|is not a function|Cannot perform/;

const answer = {
  role: "assistant",
  content: [{ type: "text", text: "hello" }],
  api: "scripted",
  provider: "scripted",
  model: "scripted-model",
  usage: {
    input: 1,
    output: 1,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 2,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  },
  stopReason: "stop",
  timestamp: 1,
} as AssistantMessage;
const EVENTS: AssistantMessageEvent[] = [
  { type: "start", partial: { ...answer, content: [] } },
  { type: "text_start", contentIndex: 0, partial: answer },
  { type: "text_delta", contentIndex: 0, delta: "hello", partial: answer },
  { type: "done", reason: "stop", message: answer },
];

/** An iterable whose iterator reads with `read(index)` (index of the read, from 0). */
function handWritten(read: (index: number) => unknown, extra: object = {}): AsyncIterable<AssistantMessageEvent> {
  return {
    ...extra,
    [Symbol.asyncIterator]() {
      let index = 0;
      return { next: () => read(index++) } as AsyncIterator<AssistantMessageEvent>;
    },
  };
}

const plainResult = (index: number) => ({ value: EVENTS[index], done: index >= EVENTS.length });
const STREAMS: readonly [string, () => AsyncIterable<AssistantMessageEvent>, RegExp][] = [
  [
    "next() throws",
    () =>
      handWritten((index) => {
        if (index === 2) throw new Error("the stream's read failed");
        return Promise.resolve(plainResult(index));
      }),
    /the stream's read failed/,
  ],
  ["next() answers null", () => handWritten(() => Promise.resolve(null)), /answered null, not an iterator result/],
  ["next() answers a number", () => handWritten(async () => 5), /answered 5, not an iterator result/],
  [
    "[Symbol.asyncIterator]() throws",
    () => ({
      [Symbol.asyncIterator]() {
        throw new Error("the stream cannot be read");
      },
    }),
    /the stream cannot be read/,
  ],
];

async function runWith(
  streamFn: StreamFn,
  retry: boolean,
  options: { clock?: ReturnType<typeof createVirtualClock> } = {},
) {
  const writer = createRecordingEventWriter();
  const outcome = await new PiTurnRunner(options).runTurn({
    sessionId: "s",
    turnId: "t",
    systemPrompt: "",
    userMessage: { text: "hi" },
    llm: { model: { id: "scripted-model", api: "scripted", provider: "scripted" } as never, streamFn },
    llmRetry: retry ? { maxRetries: 1 } : false,
    eventWriter: writer,
  });
  return { outcome, events: writer.events };
}

describe("a hand-written provider stream", () => {
  for (const retry of [true, false])
    for (const withEnd of [false, true])
      it.each(STREAMS)(
        `(%s; retry ${retry ? "on" : "off"}${withEnd ? ", with an end() of its own" : ""}) fails the turn naming it, never hangs`,
        async (_name, stream, names) => {
          const streamFn = (() => {
            const made = stream();
            return withEnd ? Object.assign(made, { end() {} }) : made;
          }) as unknown as StreamFn;
          const { outcome, events } = await runWith(streamFn, retry);
          expect(outcome.kind).toBe("failed");
          const message = outcome.kind === "failed" ? outcome.message : "";
          expect(message).toMatch(names);
          expect(message).not.toMatch(ENGINE_TEXT);
          expect(events.at(-1)).toMatchObject({ type: "session.status", payload: { status: "failed" } });
        },
      );

  it.each([
    ["a revoked proxy", () => revokedProxy()],
    [
      "an object whose [Symbol.asyncIterator] getter throws",
      () =>
        Object.defineProperty({}, Symbol.asyncIterator, {
          get() {
            throw new Error("the stream's getter failed");
          },
        }),
    ],
  ])("answered by the stream function (%s) is no stream: the turn fails naming llm.streamFn", async (_name, made) => {
    for (const retry of [true, false]) {
      const { outcome, events } = await runWith((() => made()) as unknown as StreamFn, retry);
      expect(outcome).toMatchObject({ kind: "failed", error: { code: "internal" } });
      expect(outcome.kind === "failed" && outcome.message).toMatch(/llm\.streamFn returned/);
      expect(events.at(-1)).toMatchObject({ type: "session.status", payload: { status: "failed" } });
    }
  });

  it.each([
    [
      "throws",
      () => {
        throw new Error("the stream's end() failed");
      },
    ],
    ["does nothing", () => undefined],
  ])("whose end() %s and which then stalls is ended by the idle watchdog; the process goes on", async (_name, end) => {
    const clock = createVirtualClock({ autoAdvance: true });
    const streamFn = (() =>
      handWritten((index) => (index < 2 ? Promise.resolve(plainResult(index)) : new Promise(() => undefined)), {
        end,
      })) as unknown as StreamFn;
    const writer = createRecordingEventWriter();
    const turn = new PiTurnRunner({ clock }).runTurn({
      sessionId: "s",
      turnId: "t",
      systemPrompt: "",
      userMessage: { text: "hi" },
      llm: { model: { id: "m", api: "scripted", provider: "scripted" } as never, streamFn, streamIdleTimeoutMs: 1_000 },
      llmRetry: false,
      eventWriter: writer,
    });
    const outcome = await turn;
    expect(outcome).toMatchObject({ kind: "failed", error: { code: "timeout" } });
    expect(writer.events.at(-1)).toMatchObject({ type: "session.status", payload: { status: "failed" } });
  });

  it.each([
    [
      "a read of a hand-written stream that throws",
      () =>
        handWritten((index) => {
          if (index === 2) throw new Error("the stream's read failed");
          return Promise.resolve(plainResult(index));
        }),
    ],
    [
      "a read that throws of a stream the stream function answered by a promise",
      () =>
        Promise.resolve(
          handWritten((index) => {
            if (index === 2) throw new Error("the stream's read failed");
            return Promise.resolve(plainResult(index));
          }),
        ),
    ],
    [
      "a malformed event in a pi-ai stream whose provider goes on",
      () => {
        const stream = createAssistantMessageEventStream();
        queueMicrotask(() => {
          stream.push(EVENTS[0]!);
          stream.push({ ...EVENTS[2]!, delta: 5 } as never);
        });
        return stream;
      },
    ],
  ] as [string, () => unknown][])(
    "that the call stack fails itself (%s) has its request aborted: the provider stops",
    async (_name, stream) => {
      for (const retry of [true, false]) {
        const signals: AbortSignal[] = [];
        const streamFn = ((_model: unknown, _context: unknown, options: { signal: AbortSignal }) => {
          signals.push(options.signal);
          return stream();
        }) as unknown as StreamFn;
        const { outcome } = await runWith(streamFn, retry);
        expect(outcome.kind).toBe("failed");
        expect(signals.length).toBe(1);
        expect(signals[0]!.aborted).toBe(true);
      }
    },
  );
});
