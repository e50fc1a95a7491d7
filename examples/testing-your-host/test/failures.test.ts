/**
 * How the host behaves when the model does not: each scenario injects one
 * fault with the scripted model (`errorAfter`, `throwSync`, `hang`) and
 * checks what the user would see. Where time matters (retry backoff,
 * timeouts) the host gets a virtual clock, so nothing really waits.
 */
import { describe, expect, it } from "vitest";
import type { LlmConfig } from "@turnkit/agent-core";
import {
  createScriptedModel,
  createVirtualClock,
  errorAfter,
  hang,
  response,
  text,
  throwSync,
  type ScriptEntry,
  type VirtualClock,
} from "@turnkit/agent-loop/testing";
import { answerWithTools, type AnswerDeps, type Progress } from "../src/answer-with-tools.js";

const QUESTION = "What is 10 EUR in USD?";

/** The host against `script`, recording progress. `deps` may add a clock, a signal, retry options or LLM settings. */
function ask(script: ScriptEntry[], deps: Partial<Omit<AnswerDeps, "llm">> & { llm?: Partial<LlmConfig> } = {}) {
  const model = createScriptedModel(script);
  const progress: Progress[] = [];
  const answer = answerWithTools(QUESTION, {
    ...deps,
    llm: { model: model.model, streamFn: model.streamFn, ...deps.llm },
    onProgress: (update) => {
      progress.push(update);
      deps.onProgress?.(update);
    },
  });
  return { answer, progress, model };
}

/** Moves virtual time forward in `stepMs` steps until `promise` settles; resolves to its value and the time it took. */
async function settleOnVirtualTime<T>(
  promise: Promise<T>,
  clock: VirtualClock,
  stepMs = 100,
): Promise<{ value: T; elapsedMs: number }> {
  const start = clock.now();
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  while (!settled) await clock.advance(stepMs);
  return { value: await promise, elapsedMs: clock.now() - start };
}

describe("answerWithTools, when the model fails", () => {
  it("the stream breaks after a few words: the user gets one sentence, and the words are not passed off as an answer", async () => {
    const { answer, model } = ask([
      errorAfter(4, "503 Service Unavailable", { response: "10 EUR is about 11 dollars" }),
      "never sent",
    ]);
    expect(await answer).toEqual({
      status: "failed",
      code: "upstream",
      userMessage: "The model is busy right now. Please try again in a minute.",
      partialText: "10 EUR",
    });
    // Text was already shown, so the request is not retried (the user would see it twice).
    expect(model.requests).toHaveLength(1);
  });

  it("a rate limit before any output is retried after a backoff, with a notice to the user", async () => {
    const clock = createVirtualClock();
    const { answer, progress, model } = ask(
      [errorAfter(1, "429 Too Many Requests: rate limit reached"), "10 EUR is 10.90 USD."],
      { clock },
    );
    const { value, elapsedMs } = await settleOnVirtualTime(answer, clock);
    expect(value).toEqual({ status: "answered", text: "10 EUR is 10.90 USD.", toolCalls: [] });
    expect(model.requests).toHaveLength(2);
    const notices = progress.flatMap((update) => (update.type === "retrying" ? [update] : []));
    expect(notices).toEqual([{ type: "retrying", delayMs: expect.any(Number) }]);
    expect(elapsedMs).toBeGreaterThanOrEqual(notices[0]!.delayMs); // the second request waited for the backoff
  });

  it("with retries off, the same rate limit reaches the user at once", async () => {
    const { answer, model } = ask([errorAfter(1, "429 Too Many Requests: rate limit reached"), "never sent"], {
      retry: false,
    });
    expect(await answer).toMatchObject({ status: "failed", code: "rate_limited" });
    expect(model.requests).toHaveLength(1);
  });

  it("a provider that throws instead of returning a stream does not crash the host", async () => {
    const { answer, model } = ask([throwSync(new Error("socket hang up"))], { retry: false });
    expect(await answer).toEqual({
      status: "failed",
      code: "network",
      userMessage: "The connection to the model was lost.",
      partialText: "",
    });
    expect(model.requests).toHaveLength(1); // the request was made (and recorded) before the throw
  });

  it("the user cancels while the model is still talking: cancelled, with what was shown so far", async () => {
    const controller = new AbortController();
    const { answer, model } = ask(
      [hang({ afterEvents: 4, response: response([text("Let me think about currencies for a while")]) }), "never sent"],
      {
        signal: controller.signal,
        // The user presses Esc as soon as the first words appear.
        onProgress: (update) => update.type === "text" && controller.abort(),
      },
    );
    // The words read before the abort: "Let" was shown; " me" was still queued in the scripted stream, unread.
    expect(await answer).toEqual({ status: "cancelled", partialText: "Let" });
    expect(model.requests).toHaveLength(1);
    expect(model.remaining()).toBe(1);
  });

  it("the model goes silent mid-answer: the idle timeout gives up on it, without real waiting", async () => {
    const clock = createVirtualClock();
    const { answer, model } = ask([hang({ afterEvents: 4, response: "10 EUR is about 11 dollars" }), "never sent"], {
      clock,
      llm: { streamIdleTimeoutMs: 30_000 },
    });
    const { value, elapsedMs } = await settleOnVirtualTime(answer, clock, 1000);
    expect(value).toEqual({
      status: "failed",
      code: "timeout",
      userMessage: "The model stopped responding.",
      partialText: "10 EUR",
    });
    expect(elapsedMs).toBe(30_000);
    expect(model.requests).toHaveLength(1);
  });
});
