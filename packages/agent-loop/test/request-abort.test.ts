import type { SimpleStreamOptions } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { runAgentLoop, type StreamFn } from "../src/index.js";
import { abortListenerCount, createScriptedModel, endWithoutDone, hang, response } from "../src/testing/index.js";
import { user } from "./support/scenario.js";

/** A scripted stream function that records the options of every request. */
function recordingStreamFn(script: Parameters<typeof createScriptedModel>[0]) {
  const scripted = createScriptedModel(script);
  const seen: SimpleStreamOptions[] = [];
  const streamFn: StreamFn = (model, context, options) => {
    seen.push(options!);
    return scripted.streamFn(model, context, options);
  };
  return { streamFn, seen, model: scripted.model };
}

async function run(
  recorded: ReturnType<typeof recordingStreamFn>,
  signal: AbortSignal,
  sink: (type: string) => void = () => {},
) {
  return runAgentLoop(
    [user("go")],
    { systemPrompt: "", messages: [], tools: [] },
    { model: recorded.model, convertToLlm: (all) => all as never },
    (event) => {
      if (event.type === "message_update") sink(event.assistantMessageEvent.type);
    },
    signal,
    recorded.streamFn,
  );
}

describe("a request's signal", () => {
  it("is the request's own, not the run's, and nothing of the run listens on the run's signal afterwards", async () => {
    const runSignal = new AbortController().signal;
    const recorded = recordingStreamFn([response("hi")]);
    await run(recorded, runSignal);
    const requestSignal = recorded.seen[0]!.signal!;
    expect(requestSignal).toBeInstanceOf(AbortSignal);
    expect(requestSignal).not.toBe(runSignal);
    expect(requestSignal.aborted).toBe(false);
    expect(abortListenerCount(runSignal)).toBe(0);
  });

  it("fires with the run's reason when the run is aborted", async () => {
    const controller = new AbortController();
    const recorded = recordingStreamFn([hang({ afterEvents: 2, response: "hello there" })]);
    const reason = new Error("stopped");
    const messages = await run(recorded, controller.signal, (type) => {
      if (type === "text_start") controller.abort(reason);
    });
    const requestSignal = recorded.seen[0]!.signal!;
    expect(requestSignal.aborted).toBe(true);
    expect(requestSignal.reason).toBe(reason);
    expect(messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
  });

  it("fires with an AbortError when the loop gives up on the stream, while the run's signal stays unfired", async () => {
    const runSignal = new AbortController().signal;
    const recorded = recordingStreamFn([hang({ afterEvents: 2, response: "hello there" })]);
    const messages = await run(recorded, runSignal, (type) => {
      if (type === "text_start") throw new Error("sink failed");
    });
    const requestSignal = recorded.seen[0]!.signal!;
    expect(requestSignal.aborted).toBe(true);
    expect((requestSignal.reason as DOMException).name).toBe("AbortError");
    expect(runSignal.aborted).toBe(false);
    expect(abortListenerCount(runSignal)).toBe(0);
    expect(messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "error" });
  });

  it("fires when a stream ends without a final message, and a run without a signal still gets one per request", async () => {
    const recorded = recordingStreamFn([endWithoutDone(response("cut off"))]);
    const messages = await runAgentLoop(
      [user("go")],
      { systemPrompt: "", messages: [], tools: [] },
      { model: recorded.model, convertToLlm: (all) => all as never },
      () => {},
      undefined,
      recorded.streamFn,
    );
    expect(recorded.seen[0]!.signal!.aborted).toBe(true);
    expect(messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "error" });
  });
});
