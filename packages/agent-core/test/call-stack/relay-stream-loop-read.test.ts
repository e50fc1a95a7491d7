import type { AssistantMessage, AssistantMessageEvent, Model } from "@mariozechner/pi-ai";
import { runAgentLoop, type AgentEvent, type AgentMessage, type StreamFn } from "@turnkit/agent-loop";
import { ABORTED_ERROR_MESSAGE, assistantMessage, deferred } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { RelayStream } from "../../src/call-stack/relay-stream.js";

const message = assistantMessage("one two") as AssistantMessage;
const model = { id: message.model, api: message.api, provider: message.provider } as Model<any>;
const start: AssistantMessageEvent = { type: "start", partial: message };
const delta = (text: string): AssistantMessageEvent => ({ type: "text_delta", contentIndex: 0, delta: text, partial: message });
const done: AssistantMessageEvent = { type: "done", reason: "stop", message };

/** A relay stream that counts the reads that went through its async iterator. */
class CountingRelay extends RelayStream {
  iteratorReads = 0;
  released = 0;

  override [Symbol.asyncIterator](): AsyncIterator<AssistantMessageEvent> {
    const iterator = super[Symbol.asyncIterator]();
    return {
      next: () => {
        this.iteratorReads += 1;
        return iterator.next();
      },
      return: () => {
        this.released += 1;
        return iterator.return!();
      },
    };
  }
}

/** Runs one loop turn whose only request answers with `stream`; the trace lists message events (updates with their delta). */
async function runOn(stream: RelayStream, options: { signal?: AbortSignal; onEvent?: (event: AgentEvent) => Promise<void> | void } = {}) {
  const trace: string[] = [];
  const streamFn: StreamFn = () => stream;
  const messages = await runAgentLoop(
    [{ role: "user", content: "go", timestamp: 0 }],
    { systemPrompt: "", messages: [], tools: [] },
    { model, convertToLlm: (all: AgentMessage[]) => all as never },
    (event) => {
      if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") trace.push(`update:${event.assistantMessageEvent.delta}`);
      else if (event.type === "message_start" || event.type === "message_end") trace.push(`${event.type}:${event.message.role}`);
      return options.onEvent?.(event);
    },
    options.signal,
    streamFn,
  );
  return { trace, final: messages.at(-1) as AssistantMessage };
}

describe("the loop reading a RelayStream", () => {
  it("takes the events buffered before it reads, in order, without a read of the iterator each", async () => {
    const stream = new CountingRelay();
    for (const event of [start, delta("one"), delta(" two"), done]) stream.push(event);
    const { trace, final } = await runOn(stream);
    expect(trace.slice(2)).toEqual(["message_start:assistant", "update:one", "update: two", "message_end:assistant"]);
    expect(final).toBe(message);
    expect(stream.iteratorReads).toBe(0);
    // Like a for-await loop stopping at the terminal event, the reader releases the iterator.
    expect(stream.released).toBe(1);
  });

  it("waits for a listener before the next event, whether the events came before or while it waited", async () => {
    const stream = new CountingRelay();
    const listener = deferred<void>();
    const seen: string[] = [];
    stream.push(start);
    stream.push(delta("one"));
    const run = runOn(stream, {
      onEvent: (event) => {
        if (event.type !== "message_update") return;
        seen.push(event.assistantMessageEvent.type === "text_delta" ? event.assistantMessageEvent.delta : "?");
        if (seen.length === 1) return listener.promise;
      },
    });
    await new Promise((resolve) => setImmediate(resolve));
    stream.push(delta(" two"));
    stream.push(done);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(["one"]);
    listener.resolve();
    const { trace } = await run;
    expect(seen).toEqual(["one", " two"]);
    expect(trace.slice(2)).toEqual(["message_start:assistant", "update:one", "update: two", "message_end:assistant"]);
  });

  it("a stream that ends without a terminal event ends the response as an error, keeping what streamed", async () => {
    const stream = new CountingRelay();
    stream.push(start);
    stream.push(delta("one"));
    const run = runOn(stream);
    await new Promise((resolve) => setImmediate(resolve));
    stream.end();
    const { trace, final } = await run;
    expect(trace.slice(2)).toEqual(["message_start:assistant", "update:one", "message_end:assistant"]);
    expect(final).toMatchObject({ stopReason: "error", errorMessage: "The model stream ended without a final message" });
    expect(stream.released).toBe(0);
  });

  it("a stream ended with a result but no terminal event delivers that result", async () => {
    const stream = new CountingRelay();
    stream.push(start);
    stream.end(message);
    const { final } = await runOn(stream);
    expect(final).toBe(message);
  });

  it("an abort while reading a stream that ignores it ends the response aborted after the grace", async () => {
    const stream = new CountingRelay();
    const controller = new AbortController();
    stream.push(start);
    stream.push(delta("one"));
    const run = runOn(stream, { signal: controller.signal });
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const { trace, final } = await run;
    expect(trace.slice(2)).toEqual(["message_start:assistant", "update:one", "message_end:assistant"]);
    expect(final).toMatchObject({ stopReason: "aborted", errorMessage: ABORTED_ERROR_MESSAGE });
  });

  it("a failing listener stops the reading, releases the stream and fails the run with an error message", async () => {
    const stream = new CountingRelay();
    for (const event of [start, delta("one"), delta(" two"), done]) stream.push(event);
    const { trace, final } = await runOn(stream, {
      onEvent: (event) => {
        if (event.type === "message_update") throw new Error("listener failed");
      },
    });
    expect(trace.slice(2)).toEqual(["message_start:assistant", "update:one", "message_end:assistant"]);
    expect(final).toMatchObject({ stopReason: "error", errorMessage: "listener failed" });
    expect(stream.released).toBe(1);
  });
});
