import type { SimpleStreamOptions } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import {
  callWithLoopRequestAbort,
  followLoopRequestAbort,
  loopRequestAbortOf,
  runAgentLoop,
  type LoopRequestAbort,
  type StreamFn,
} from "../src/index.js";
import { RequestAbort } from "../src/request-abort.js";
import { abortListenerCount, createScriptedModel, hang, response } from "../src/testing/index.js";
import { user } from "./support/scenario.js";

describe("the loop's request abort", () => {
  it("tells its watchers in the order they came, before the listeners of a request signal made after them", () => {
    const requests = new RequestAbort();
    const told: string[] = [];
    requests.watch({ handleEvent: () => told.push("first watcher") });
    requests.watch({ handleEvent: () => told.push("second watcher") });
    requests.signal().addEventListener("abort", () => told.push("listener"));
    requests.watch({ handleEvent: () => told.push("watcher after the signal") });
    const reason = new Error("stop");
    requests.abort(reason);
    expect(told).toEqual(["first watcher", "second watcher", "listener", "watcher after the signal"]);
    expect(requests.aborted).toBe(true);
    expect(requests.reason).toBe(reason);
    expect(requests.signal().reason).toBe(reason);
    requests.abort(new Error("again"));
    expect(requests.reason).toBe(reason);
  });

  it("does not tell a watcher that stopped watching, also while an earlier one is told", () => {
    const requests = new RequestAbort();
    const told: string[] = [];
    const second = { handleEvent: () => told.push("second") };
    const gone = { handleEvent: () => told.push("gone") };
    requests.watch(gone);
    requests.unwatch(gone);
    requests.watch({
      handleEvent: () => {
        told.push("first");
        requests.unwatch(second);
      },
    });
    requests.watch(second);
    requests.giveUp();
    expect(told).toEqual(["first"]);
  });

  it("gives up with the AbortError an AbortController gives, and makes its signal already aborted afterwards", () => {
    const requests = new RequestAbort();
    requests.giveUp();
    const controller = new AbortController();
    controller.abort();
    expect(requests.reason).toBeInstanceOf(DOMException);
    expect((requests.reason as DOMException).name).toBe((controller.signal.reason as DOMException).name);
    expect((requests.reason as DOMException).message).toBe((controller.signal.reason as DOMException).message);
    expect(requests.signal().aborted).toBe(true);
    expect(requests.signal().reason).toBe(requests.reason);
    const late: string[] = [];
    requests.watch({ handleEvent: () => late.push("late") });
    expect(late).toEqual([]);
  });
});

describe("offering the loop's request abort", () => {
  it("answers it for those very options while the call runs, and the offer before it once the call ends", () => {
    const outer = new RequestAbort();
    const inner = new RequestAbort();
    const outerOptions: SimpleStreamOptions = {};
    const innerOptions: SimpleStreamOptions = {};
    const seen: (LoopRequestAbort | undefined)[] = [];
    const result = callWithLoopRequestAbort(
      (_model: string, _context: string, options: SimpleStreamOptions) => {
        seen.push(loopRequestAbortOf(options), loopRequestAbortOf({ ...options }), loopRequestAbortOf(innerOptions));
        expect(() =>
          callWithLoopRequestAbort(
            () => {
              seen.push(loopRequestAbortOf(innerOptions), loopRequestAbortOf(outerOptions));
              throw new Error("inner send failed");
            },
            "model",
            "context",
            innerOptions,
            inner,
          ),
        ).toThrow("inner send failed");
        seen.push(loopRequestAbortOf(outerOptions));
        return "sent";
      },
      "model",
      "context",
      outerOptions,
      outer,
    );
    expect(result).toBe("sent");
    expect(seen).toEqual([outer, undefined, undefined, inner, undefined, outer]);
    expect(loopRequestAbortOf(outerOptions)).toBeUndefined();
  });
});

describe("a stream function that follows the loop's request abort", () => {
  function recordingStreamFn(script: Parameters<typeof createScriptedModel>[0], declared: boolean) {
    const scripted = createScriptedModel(script);
    const seen: { options: SimpleStreamOptions | undefined; requestAbort: LoopRequestAbort | undefined }[] = [];
    const plain: StreamFn = (model, context, options) => {
      const requestAbort = loopRequestAbortOf(options);
      seen.push({ options, requestAbort });
      // The provider stops with the loop's request: through the request signal the request abort makes.
      return scripted.streamFn(model, context, requestAbort ? { ...options, signal: requestAbort.signal() } : options);
    };
    return { streamFn: declared ? followLoopRequestAbort(plain) : plain, seen, model: scripted.model };
  }

  async function run(
    streamFn: StreamFn,
    model: ReturnType<typeof createScriptedModel>["model"],
    signal: AbortSignal,
    sink: (type: string) => void = () => {},
  ) {
    return runAgentLoop(
      [user("go")],
      { systemPrompt: "", messages: [], tools: [] },
      { model, convertToLlm: (all) => all as never },
      (event) => {
        if (event.type === "message_update") sink(event.assistantMessageEvent.type);
      },
      signal,
      streamFn,
    );
  }

  it("gets the run's own signal and finds the request abort on its options; another gets a request signal and none", async () => {
    const runSignal = new AbortController().signal;
    const declared = recordingStreamFn([response("hi")], true);
    await run(declared.streamFn, declared.model, runSignal);
    expect(declared.seen[0]!.options!.signal).toBe(runSignal);
    expect(declared.seen[0]!.requestAbort).toBeDefined();
    expect(declared.seen[0]!.requestAbort!.aborted).toBe(false);
    expect(abortListenerCount(runSignal)).toBe(0);

    const plain = recordingStreamFn([response("hi")], false);
    await run(plain.streamFn, plain.model, runSignal);
    expect(plain.seen[0]!.options!.signal).not.toBe(runSignal);
    expect(plain.seen[0]!.requestAbort).toBeUndefined();
  });

  it("is told of the run's abort with the run's reason", async () => {
    const controller = new AbortController();
    const declared = recordingStreamFn([hang({ afterEvents: 2, response: "hello there" })], true);
    const reason = new Error("stopped");
    const messages = await run(declared.streamFn, declared.model, controller.signal, (type) => {
      if (type === "text_start") controller.abort(reason);
    });
    const requestAbort = declared.seen[0]!.requestAbort!;
    expect(requestAbort.aborted).toBe(true);
    expect(requestAbort.reason).toBe(reason);
    expect(messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
  });

  it("is told when the loop gives up on the stream, while the run's signal stays unfired", async () => {
    const runSignal = new AbortController().signal;
    const declared = recordingStreamFn([hang({ afterEvents: 2, response: "hello there" })], true);
    const messages = await run(declared.streamFn, declared.model, runSignal, (type) => {
      if (type === "text_start") throw new Error("sink failed");
    });
    const requestAbort = declared.seen[0]!.requestAbort!;
    expect(requestAbort.aborted).toBe(true);
    expect((requestAbort.reason as DOMException).name).toBe("AbortError");
    expect(runSignal.aborted).toBe(false);
    expect(abortListenerCount(runSignal)).toBe(0);
    expect(messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "error" });
  });
});
