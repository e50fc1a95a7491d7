import {
  createAssistantMessageEventStream,
  type AssistantMessage,
  type AssistantMessageEvent,
} from "@mariozechner/pi-ai";
import { assistantMessage } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { pipeEvents, type EventSink } from "../../src/call-stack/relay-stream.js";

const message = assistantMessage("a") as AssistantMessage;
const start: AssistantMessageEvent = { type: "start", partial: message };
const delta = (text: string): AssistantMessageEvent => ({
  type: "text_delta",
  contentIndex: 0,
  delta: text,
  partial: message,
});
const done: AssistantMessageEvent = { type: "done", reason: "stop", message };

function recordingSink(onEvent?: (event: AssistantMessageEvent) => void): EventSink & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    event: (event) => {
      seen.push(event.type === "text_delta" ? `delta:${event.delta}` : event.type);
      onEvent?.(event);
    },
    end: () => void seen.push("end"),
    fail: (error) => void seen.push(`fail:${String(error)}`),
  };
}

/** Resolves once `sink` has seen `count` entries (it reads by async iteration). */
async function until(sink: { seen: string[] }, count: number): Promise<void> {
  while (sink.seen.length < count) await new Promise((resolve) => setImmediate(resolve));
}

describe("a provider's pi-ai stream read by pipeEvents", () => {
  it("hands every event to the sink in order, up to the terminal event; result() still resolves", async () => {
    const provider = createAssistantMessageEventStream();
    const sink = recordingSink();
    pipeEvents(provider, sink);
    provider.push(start);
    provider.push(delta("a"));
    provider.push(done);
    provider.push(delta("late"));
    provider.end();
    await until(sink, 3);
    expect(await provider.result()).toBe(message);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sink.seen).toEqual(["start", "delta:a", "done"]);
  });

  it("hands events queued before it was piped first, then later ones, never inside the caller's call", async () => {
    const provider = createAssistantMessageEventStream();
    provider.push(start);
    const sink = recordingSink();
    pipeEvents(provider, sink);
    provider.push(delta("a"));
    expect(sink.seen).toEqual([]);
    await until(sink, 2);
    expect(sink.seen).toEqual(["start", "delta:a"]);
    provider.push(done);
    await until(sink, 3);
    expect(sink.seen).toEqual(["start", "delta:a", "done"]);
  });

  it("reports an end without a terminal event once, after everything queued before it", async () => {
    const provider = createAssistantMessageEventStream();
    const sink = recordingSink();
    pipeEvents(provider, sink);
    provider.push(start);
    provider.end();
    provider.end();
    await until(sink, 2);
    expect(sink.seen).toEqual(["start", "end"]);

    const endedEarly = createAssistantMessageEventStream();
    endedEarly.push(start);
    endedEarly.end();
    const late = recordingSink();
    pipeEvents(endedEarly, late);
    await until(late, 2);
    expect(late.seen).toEqual(["start", "end"]);
  });

  it("a push made while the sink handles an event comes after it", async () => {
    const provider = createAssistantMessageEventStream();
    const order: string[] = [];
    const sink = recordingSink((event) => {
      order.push(`in:${event.type}`);
      if (event.type === "start") provider.push(delta("nested"));
      order.push(`out:${event.type}`);
    });
    pipeEvents(provider, sink);
    provider.push(start);
    await until(sink, 2);
    expect(sink.seen).toEqual(["start", "delta:nested"]);
    expect(order).toEqual(["in:start", "out:start", "in:text_delta", "out:text_delta"]);
  });

  it("stop() hands nothing more to the sink", async () => {
    const provider = createAssistantMessageEventStream();
    const sink = recordingSink();
    const stop = pipeEvents(provider, sink);
    provider.push(start);
    await until(sink, 1);
    stop();
    provider.push(delta("kept"));
    provider.push(done);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sink.seen).toEqual(["start"]);
  });

  it("a stream someone already reads is shared with that reader, in order", async () => {
    const provider = createAssistantMessageEventStream();
    const reader = provider[Symbol.asyncIterator]();
    const first = reader.next();
    await Promise.resolve();
    const sink = recordingSink();
    pipeEvents(provider, sink);
    provider.push(start);
    provider.push(done);
    expect((await first).value).toBe(start);
    await until(sink, 1);
    expect(sink.seen).toEqual(["done"]);
  });
});
