/**
 * `onLlmCallPreparedHook` sees each request as it is actually sent: the
 * options after every layer of the call stack (the host's output cap,
 * cache retention, the request timeout, the transport retry's
 * `maxRetries: 0`), not the loop's options before them. Credentials and
 * functions are left out. A transport retry is not announced again; a
 * resend with other messages (an overflow recovery) is.
 */
import { describe, expect, it } from "vitest";
import { errorAfter } from "@turnkit/agent-loop/testing";
import { runCheckedTurn } from "@turnkit/agent-core/testing";
import { TURN_DEFAULTS } from "../../src/defaults.js";
import type { LlmCallPreparedEvent } from "../../src/pi-turn-runner/turn-hooks.js";

describe("onLlmCallPreparedHook sees the options actually sent", () => {
  it("with every option set: the host cap, cache retention, timeout, maxRetries 0, reasoning and session; no key, headers or functions", async () => {
    const prepared: LlmCallPreparedEvent[] = [];
    const turn = await runCheckedTurn({
      script: ["answer"],
      input: {
        sessionId: "session-options",
        llm: {
          apiKey: "sk-secret",
          maxTokens: 8_000,
          hostMaxOutputTokens: 1_024,
          cacheRetention: "long",
          thinkingLevel: "high",
          headers: { authorization: "Bearer secret" },
          firstEventTimeoutMs: 60_000,
          streamIdleTimeoutMs: 60_000,
          payloadTransform: () => undefined,
          responseObserver: () => undefined,
        },
        llmRetry: { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 1 },
        hooks: { onLlmCallPreparedHook: (event) => void prepared.push(event) },
      },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(prepared).toHaveLength(1);
    const { options } = prepared[0]!;
    const sent = turn.requests[0]!.options;
    expect(options).toMatchObject({
      maxTokens: 1_024,
      cacheRetention: "long",
      timeoutMs: TURN_DEFAULTS.llmRequestTimeoutMs,
      maxRetries: 0,
      sessionId: "session-options",
    });
    expect(sent).toMatchObject({
      maxTokens: 1_024,
      cacheRetention: "long",
      timeoutMs: TURN_DEFAULTS.llmRequestTimeoutMs,
      maxRetries: 0,
    });
    // Every option the stream function received is shown, except credentials, the signal and functions.
    for (const [key, value] of Object.entries(sent)) {
      if (key === "apiKey" || key === "headers" || typeof value === "function" || value === undefined) continue;
      expect(options[key], key).toEqual(value);
    }
    expect(options).not.toHaveProperty("apiKey");
    expect(options).not.toHaveProperty("headers");
    expect(options).not.toHaveProperty("signal");
    expect(JSON.stringify(options)).not.toContain("secret");
    expect(Object.values(options).some((value) => typeof value === "function")).toBe(false);
  });

  it("a request sent again by the transport retry is announced once, with its final options", async () => {
    const prepared: LlmCallPreparedEvent[] = [];
    const turn = await runCheckedTurn({
      script: [errorAfter(0, "503 upstream overloaded"), "answer"],
      input: {
        llm: { maxTokens: 500 },
        llmRetry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 1 },
        hooks: { onLlmCallPreparedHook: (event) => void prepared.push(event) },
      },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests).toHaveLength(2);
    expect(prepared.map((event) => [event.requestIndex, event.options.maxTokens, event.options.maxRetries])).toEqual([
      [0, 500, 0],
    ]);
  });

  it("a request resent after an overflow recovery changed its messages is announced again, with what was resent", async () => {
    const prepared: LlmCallPreparedEvent[] = [];
    const turn = await runCheckedTurn({
      script: [errorAfter(0, "400 prompt is too long: 213462 tokens > 200000 maximum"), "answer"],
      input: {
        history: [
          { role: "user", content: "an old question", timestamp: 1 },
          { role: "user", content: "another old question", timestamp: 2 },
        ],
        hooks: {
          // The recovery drops everything but the newest message from the resent request.
          beforeLlmCallHook: (event) =>
            event.reason === "overflow"
              ? { type: "replaceRequestMessages", messages: event.messages.slice(-1) }
              : undefined,
          onLlmCallPreparedHook: (event) => void prepared.push(event),
        },
      },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests).toHaveLength(2);
    expect(prepared.map((event) => [event.requestIndex, event.context.messages.length])).toEqual([
      [0, 3],
      [0, 1],
    ]);
  });
});
