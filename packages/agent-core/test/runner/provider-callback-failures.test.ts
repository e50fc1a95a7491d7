/**
 * `llm.payloadTransform` and `llm.responseObserver` are host code the
 * provider calls in the middle of a request. When one throws, the turn ends
 * as the host's fault (code `internal`, the callback named), whatever its
 * text says, and the request is not retried, although the same text from
 * the provider would be (a 429, a timeout, a reset connection). Runs pi-ai's
 * own openai-completions provider against a fake server on 127.0.0.1, with
 * a second good answer scripted so a retry would show as a completed turn.
 */
import { streamSimple } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { ErrorCode } from "@turnkit/protocol";
import { runCheckedTurn } from "@turnkit/agent-core/testing";
import type { LlmConfig } from "../../src/call-stack/llm-config.js";
import type { StreamFn } from "../../src/call-stack/stream-fn.js";
import { fakeModel, reply } from "../support/fake-openai-server.js";
import { serve } from "../support/http-call-stack.js";

const PROVIDER_LIKE = ["429 rate limit", "request timed out", "ECONNRESET"];

const CALLBACKS = {
  payloadTransform: (text: string): Partial<LlmConfig> => ({
    payloadTransform: () => {
      throw new Error(text);
    },
  }),
  responseObserver: (text: string): Partial<LlmConfig> => ({
    responseObserver: async () => {
      throw new Error(text);
    },
  }),
};

describe("a throwing provider callback ends the turn internal, naming it, with no retry", () => {
  for (const [callback, llmWith] of Object.entries(CALLBACKS)) {
    it.each(PROVIDER_LIKE)(`${callback} throwing %j`, async (text) => {
      const server = await serve(reply.text("first answer"), reply.text("a retried answer"));
      let streamCalls = 0;
      const counted: StreamFn = (model, context, options) => {
        streamCalls += 1;
        return streamSimple(model, context, options);
      };
      const turn = await runCheckedTurn({
        input: {
          llm: { model: fakeModel(server.baseUrl), apiKey: "sk-test-key", streamFn: counted, ...llmWith(text) },
          llmRetry: { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 1 },
        },
      });
      expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Internal } });
      const message = turn.outcome.kind === "failed" ? turn.outcome.error.message : "";
      expect(message).toContain(`host callback ${callback}`);
      expect(message).toContain(text);
      // One provider request, never a second attempt; the payload is transformed before anything is sent.
      expect(streamCalls).toBe(1);
      expect(server.requests).toHaveLength(callback === "payloadTransform" ? 0 : 1);
      expect(turn.writer.traces().some((trace) => trace.phase === "llm.retry")).toBe(false);
      expect(turn.writer.ofType("session.status").at(-1)?.payload).toMatchObject({
        status: "failed",
        error: { code: ErrorCode.Internal },
      });
    });
  }

  it("callbacks that answer change nothing: the payload is transformed and the response observed", async () => {
    const server = await serve(reply.text("the answer"));
    const observed: number[] = [];
    const turn = await runCheckedTurn({
      input: {
        llm: {
          model: fakeModel(server.baseUrl),
          apiKey: "sk-test-key",
          streamFn: streamSimple,
          payloadTransform: async (payload) => ({ ...(payload as object), user: "transformed" }),
          responseObserver: (response) => void observed.push(response.status),
        },
      },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(server.requests[0]?.body).toMatchObject({ user: "transformed" });
    expect(observed).toEqual([200]);
  });
});
