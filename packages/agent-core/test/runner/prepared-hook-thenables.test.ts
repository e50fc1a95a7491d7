/**
 * `onLlmCallPreparedHook` is an observer: its answer is not waited for, and
 * its failure is ignored, also a rejection. A hook may answer a thenable
 * that is no promise (no `catch` of its own): its rejection is handled all
 * the same, so the host process sees no unhandled rejection.
 */
import { PiTurnRunner } from "@turnkit/agent-core";
import { afterEach, describe, expect, it } from "vitest";
import { createRecordingEventWriter, createScriptedModel } from "../../src/testing/index.js";

const seen: unknown[] = [];
const onUnhandled = (reason: unknown) => void seen.push(reason);

afterEach(() => {
  process.off("unhandledRejection", onUnhandled);
  seen.length = 0;
});

describe("onLlmCallPreparedHook answering a thenable", () => {
  it("that rejects: the turn completes and the rejection is handled", async () => {
    process.on("unhandledRejection", onUnhandled);
    const model = createScriptedModel(["hello"]);
    const failure = new Error("the observer's thenable rejected");
    const outcome = await new PiTurnRunner().runTurn({
      sessionId: "s",
      turnId: "t",
      systemPrompt: "",
      userMessage: { text: "hi" },
      llm: { model: model.model, streamFn: model.streamFn },
      eventWriter: createRecordingEventWriter(),
      hooks: {
        onLlmCallPreparedHook: () => {
          // A thenable without `catch` over a rejected promise of the host's: only its `then` handles it.
          const rejected = Promise.reject(failure);
          return {
            // biome-ignore lint/suspicious/noThenProperty: a thenable is what this hook answers
            then: (onFulfilled: never, onRejected: (error: unknown) => void) => rejected.then(onFulfilled, onRejected),
          } as never;
        },
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(outcome).toMatchObject({ kind: "completed" });
    expect(seen).toEqual([]);
  });
});
