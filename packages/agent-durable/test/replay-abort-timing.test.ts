/*
 * The premise of a replayed model request that the turn's abort stopped
 * (see `durableStreamFn`): it pushes the recorded events all at once, waits
 * `untilPushedEventsRead`, and only then lets the abort reach the runner,
 * because pi-ai's event stream says nothing about how far its reader got
 * (its stream class is exported as a type only, so no subclass can count
 * the reads). Run here on the real runner, with the transport retry on (its
 * watchdogs and held-back events) and off: should a layer of the call stack
 * start to wait longer between reads, or the wait get shorter, the runner
 * drops the replayed events and this test fails (the recovered log would
 * number its rest differently from what it logged before the crash; with
 * a microtask instead of the wait, none of the 40 events arrives).
 */
import { type AssistantMessageEvent, createAssistantMessageEventStream } from "@mariozechner/pi-ai";
import { createScriptedModel, response, runScriptedTurn } from "@turnkit/agent-core/testing";
import type { StreamFn } from "@turnkit/agent-loop";
import { describe, expect, it } from "vitest";
import { untilPushedEventsRead } from "../src/steps/model-request-step.js";

const DELTAS = 40;

/** The events a request streamed before the abort stopped it, as a record holds them (no terminal event). */
async function recordedEvents(): Promise<AssistantMessageEvent[]> {
  const words = Array.from({ length: DELTAS }, (_, i) => `w${i} `).join("");
  const scripted = createScriptedModel([response(words)]);
  const stream = await scripted.streamFn(scripted.model, { messages: [] }, {});
  const events: AssistantMessageEvent[] = [];
  for await (const event of stream) if (event.type !== "done" && event.type !== "error") events.push(event);
  return events;
}

/** A stream function that replays `events` as `durableStreamFn` replays an aborted request: all, the wait, the abort, the ending. */
function replayAborted(events: AssistantMessageEvent[], abort: AbortController): StreamFn {
  return () => {
    const stream = createAssistantMessageEventStream();
    void (async () => {
      for (const event of events) stream.push(event);
      await untilPushedEventsRead();
      abort.abort();
      const last = events.at(-1)!;
      const partial = "partial" in last ? last.partial : undefined;
      stream.push({ type: "error", reason: "aborted", error: { ...partial!, stopReason: "aborted" } });
      stream.end();
    })();
    return stream;
  };
}

describe("a replayed request the abort stopped", () => {
  for (const llmRetry of [undefined, false] as const) {
    it(`reaches the runner with every recorded event before the abort (transport retry ${llmRetry === false ? "off" : "on"})`, async () => {
      const events = await recordedEvents();
      const abort = new AbortController();
      const result = await runScriptedTurn({
        script: [],
        input: { signal: abort.signal, llm: { streamFn: replayAborted(events, abort) }, llmRetry },
      });
      expect(result.outcome.kind).toBe("aborted");
      const deltas = result.events.filter((e) => e.type === "stream.resp" && e.payload.chunk.kind === "text");
      expect(deltas).toHaveLength(DELTAS);
    });
  }
});
