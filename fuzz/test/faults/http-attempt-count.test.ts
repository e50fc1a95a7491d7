/**
 * A turn over HTTP that fails while its first response streams (the host's
 * message-id allocator throws at the first text) stops reading that
 * response, and the request is aborted before its own end reaches the
 * turn. That attempt was sent: the outcome's `usage.attempts` counts it.
 * Before, attempts were counted at their end, and this one, sent to the
 * server, was reported as 0 (found by `runner-http-provider`, seed 4002).
 */
import { describe, it } from "vitest";
import { checkHttpProviderTurn, type HttpProviderTurnCase } from "../../src/http-provider-turns.js";

const failingAtFirstText: HttpProviderTurnCase = {
  scenario: {
    requests: [
      {
        failures: [],
        response: {
          token: "r1",
          thinking: "alpha",
          text: undefined,
          calls: [
            {
              id: "r1c0",
              tool: "alpha",
              args: { kind: "valid", value: "a" },
              behaviour: { kind: "throw", delay: { kind: "microtasks", count: 1 }, unreadable: false },
            },
          ],
          stopReason: "stop",
          ending: { kind: "normal" },
          eventDelayMs: 0,
          chunkSize: 1,
          usage: undefined,
        },
      },
    ],
    toolModes: { alpha: "parallel", beta: "parallel", gamma: "parallel", prepared: "parallel" },
    hooks: {
      beforeLlmCall: undefined,
      onLlmCallPrepared: ["throw"],
      afterLlmCall: ["continue"],
      beforeToolCall: undefined,
      onToolExecutionStart: undefined,
      afterToolCall: undefined,
      onHistoryChanged: undefined,
      onStepEnd: undefined,
    },
    actions: [],
    writer: { asyncTicks: 0, failAt: undefined, slow: undefined },
    allocatorFailure: { target: "message", index: 0, mode: "throw" },
    steering: {
      pollThrowsAt: 0,
      tryBeginClose: [true],
      shouldStopAfterSteering: undefined,
      shouldStopAfterTurn: undefined,
    },
    retry: { enabled: true, maxRetries: 0, baseDelayMs: 0, maxDelayMs: 50, maxRetryElapsedMs: 100, jitter: 0 },
    streamTimeouts: "default",
    abortBeforeStart: false,
    withHistory: false,
    beforeUserMessages: false,
    pacing: 1,
    hostWarnings: false,
  },
  http: {
    dialect: "openai-completions",
    framing: { crlf: false, comments: false, noSpace: false, pieces: 1 },
    errorBody: "json",
    withoutDone: false,
    pauseMs: 1,
    pieceSize: 0,
    extras: [],
    cut: undefined,
    modelFault: undefined,
    scale: 500,
    seed: 0,
  },
} as never;

describe("an attempt the turn stopped reading over HTTP", () => {
  it("is counted in the outcome's usage.attempts: one request sent, one attempt", async () => {
    await checkHttpProviderTurn(failingAtFirstText);
  });
});
