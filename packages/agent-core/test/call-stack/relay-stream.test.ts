import {
  createAssistantMessageEventStream,
  type AssistantMessage,
  type AssistantMessageEvent,
  type Model,
} from "@mariozechner/pi-ai";
import { assistantMessage, createVirtualClock } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { pipeEvents, RelayStream, type EventSink } from "../../src/call-stack/relay-stream.js";
import { withLlmRetry } from "../../src/call-stack/llm-retry.js";
import { withOverflowRecovery, createOverflowRecoveryState } from "../../src/call-stack/overflow-recovery.js";
import { withStreamTimeouts } from "../../src/call-stack/stream-timeouts.js";
import { userContext } from "../support/user-context.js";

const message = assistantMessage("a") as AssistantMessage;
const model = { id: message.model, api: message.api, provider: message.provider } as Model<any>;
const start: AssistantMessageEvent = { type: "start", partial: message };
const delta = (text: string): AssistantMessageEvent => ({
  type: "text_delta",
  contentIndex: 0,
  delta: text,
  partial: message,
});
const done: AssistantMessageEvent = { type: "done", reason: "stop", message };

function recordingSink(): EventSink & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    event: (event) => void seen.push(event.type === "text_delta" ? `delta:${event.delta}` : event.type),
    end: () => void seen.push("end"),
    fail: (error) => void seen.push(`fail:${String(error)}`),
  };
}

async function drain(stream: AsyncIterable<AssistantMessageEvent>): Promise<string[]> {
  const types: string[] = [];
  for await (const event of stream) types.push(event.type);
  return types;
}

describe("RelayStream", () => {
  it("reads like a pi-ai stream: events in order, result() from the terminal event, nothing after it", async () => {
    const stream = new RelayStream();
    stream.push(start);
    stream.push(delta("a"));
    stream.push(done);
    stream.push(delta("late"));
    stream.end();
    expect(await drain(stream)).toEqual(["start", "text_delta", "done"]);
    expect(await stream.result()).toBe(message);
  });

  it("wakes a reader that waits, and ends it on end() without a terminal event", async () => {
    const stream = new RelayStream();
    const read = drain(stream);
    stream.push(start);
    await Promise.resolve();
    stream.end();
    expect(await read).toEqual(["start"]);
  });

  it("hands each push to an attached sink synchronously, then ends it after the terminal event", () => {
    const stream = new RelayStream();
    const sink = recordingSink();
    pipeEvents(stream, sink);
    stream.push(start);
    expect(sink.seen).toEqual(["start"]);
    stream.push(delta("a"));
    stream.push(done);
    expect(sink.seen).toEqual(["start", "delta:a", "done", "end"]);
  });

  it("is not attached once it was pushed to or read: the sink then reads it by iteration, in order", async () => {
    const stream = new RelayStream();
    stream.push(start);
    const sink = recordingSink();
    pipeEvents(stream, sink);
    expect(sink.seen).toEqual([]);
    stream.push(done);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sink.seen).toEqual(["start", "done"]);
  });

  it("stop() drops what follows; a foreign stream's iterator is asked to return", async () => {
    const relay = new RelayStream();
    const sink = recordingSink();
    const stop = pipeEvents(relay, sink);
    relay.push(start);
    stop();
    relay.push(delta("dropped"));
    expect(sink.seen).toEqual(["start"]);

    let returned = false;
    const foreign: AsyncIterable<AssistantMessageEvent> = {
      [Symbol.asyncIterator]: () => ({
        next: () => new Promise<IteratorResult<AssistantMessageEvent>>(() => undefined),
        return: () => {
          returned = true;
          return new Promise<IteratorResult<AssistantMessageEvent>>(() => undefined); // never settles: not waited for
        },
      }),
    };
    pipeEvents(foreign, recordingSink())();
    expect(returned).toBe(true);
  });

  it("relays events through timeouts, retry and overflow recovery in order, and ends the stream after the terminal one", async () => {
    /** Resolves once `sink` has seen `count` entries. */
    const seenCount = async (sink: { seen: string[] }, count: number) => {
      while (sink.seen.length < count) await new Promise((resolve) => setImmediate(resolve));
    };
    const provider = createAssistantMessageEventStream();
    const clock = createVirtualClock();
    const timed = withStreamTimeouts(() => provider, {
      firstEventTimeoutMs: 1000,
      streamIdleTimeoutMs: 1000,
      clock,
      env: {},
    });
    const retried = withLlmRetry(timed, {}, { clock });
    const recovered = withOverflowRecovery(retried, { state: createOverflowRecoveryState(), recover: () => undefined });
    const sink = recordingSink();
    pipeEvents(await recovered(model, userContext(), {}), sink);
    provider.push(start);
    provider.push(delta("a"));
    await seenCount(sink, 2);
    expect(sink.seen).toEqual(["start", "delta:a"]);
    provider.push(done);
    await seenCount(sink, 4);
    expect(sink.seen).toEqual(["start", "delta:a", "done", "end"]);
    expect(clock.pendingCount()).toBe(0);
  });
});
