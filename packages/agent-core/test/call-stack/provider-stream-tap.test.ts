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

const nextMacrotask = () => new Promise((resolve) => setImmediate(resolve));

describe("a provider's pi-ai stream read by pipeEvents", () => {
  it("hands each later push to the sink as it is pushed, up to the terminal event; result() still resolves", async () => {
    const provider = createAssistantMessageEventStream();
    const sink = recordingSink();
    pipeEvents(provider, sink);
    provider.push(start);
    provider.push(delta("a"));
    expect(sink.seen).toEqual(["start", "delta:a"]);
    provider.push(done);
    provider.push(delta("late"));
    provider.end();
    expect(sink.seen).toEqual(["start", "delta:a", "done"]);
    expect(await provider.result()).toBe(message);
  });

  it("hands events queued before it was piped over in a microtask, never inside the caller's call", async () => {
    const provider = createAssistantMessageEventStream();
    provider.push(start);
    const sink = recordingSink();
    pipeEvents(provider, sink);
    provider.push(delta("a"));
    expect(sink.seen).toEqual([]);
    await Promise.resolve();
    expect(sink.seen).toEqual(["start", "delta:a"]);
    provider.push(done);
    expect(sink.seen).toEqual(["start", "delta:a", "done"]);
  });

  it("reports an end without a terminal event once, after everything queued before it", async () => {
    const provider = createAssistantMessageEventStream();
    const sink = recordingSink();
    pipeEvents(provider, sink);
    provider.push(start);
    provider.end();
    provider.end();
    expect(sink.seen).toEqual(["start", "end"]);

    const endedEarly = createAssistantMessageEventStream();
    endedEarly.push(start);
    endedEarly.end();
    const late = recordingSink();
    pipeEvents(endedEarly, late);
    await nextMacrotask();
    expect(late.seen).toEqual(["start", "end"]);
  });

  it("a push made while the sink handles an event waits behind it", () => {
    const provider = createAssistantMessageEventStream();
    const order: string[] = [];
    const sink = recordingSink((event) => {
      order.push(`in:${event.type}`);
      if (event.type === "start") provider.push(delta("nested"));
      order.push(`out:${event.type}`);
    });
    pipeEvents(provider, sink);
    provider.push(start);
    expect(sink.seen).toEqual(["start", "delta:nested"]);
    expect(order).toEqual(["in:start", "out:start", "in:text_delta", "out:text_delta"]);
  });

  it("stop() leaves later events in the stream, as an iterator that stopped reading would", async () => {
    const provider = createAssistantMessageEventStream();
    const sink = recordingSink();
    const stop = pipeEvents(provider, sink);
    provider.push(start);
    stop();
    provider.push(delta("kept"));
    provider.push(done);
    expect(sink.seen).toEqual(["start"]);
    const rest: string[] = [];
    for await (const event of provider) rest.push(event.type);
    expect(rest).toEqual(["text_delta", "done"]);
  });

  it("a stream someone already reads is iterated as before", async () => {
    const provider = createAssistantMessageEventStream();
    const reader = provider[Symbol.asyncIterator]();
    const first = reader.next();
    await Promise.resolve();
    const sink = recordingSink();
    pipeEvents(provider, sink);
    provider.push(start);
    provider.push(done);
    expect((await first).value).toBe(start);
    await nextMacrotask();
    expect(sink.seen).toEqual(["done"]);
  });
});
