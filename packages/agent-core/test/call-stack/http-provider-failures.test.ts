/**
 * Real providers' failure shapes through the whole call stack over HTTP:
 * status first, then text, decides whether the retry layer tries again and
 * whether overflow recovery starts.
 */
import { describe, expect, it, vi } from "vitest";
import { classifyError } from "../../src/call-stack/classify-error.js";
import type { OverflowRecover } from "../../src/call-stack/overflow-recovery.js";
import { reply } from "../support/fake-openai-server.js";
import { callStack, serve } from "../support/http-call-stack.js";
import { userContext } from "../support/user-context.js";

describe("provider failure shapes over HTTP", () => {
  it("a 429 'Request too large … (TPM)' is a rate limit: retried, never handed to overflow recovery", async () => {
    const tpm =
      "Request too large for gpt-4o in organization org-test on tokens per min (TPM): Limit 30000, Requested 61337. The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.";
    const server = await serve(
      {
        type: "status",
        status: 429,
        body: { error: { message: tpm, type: "tokens", param: null, code: "rate_limit_exceeded" } },
      },
      reply.text("fits now"),
    );
    const recover = vi.fn<OverflowRecover>(async () => userContext("compacted"));
    const { run, notifications } = callStack(server, { recover });
    const result = await run();
    expect(result.text).toBe("fits now");
    expect(recover).not.toHaveBeenCalled();
    expect(server.requests).toHaveLength(2);
    expect(notifications[0]).toMatchObject({ type: "waiting", error: { code: "rate_limited", status: 429 } });
  });

  it("a 429 saying the token plan is exhausted is quota: one request, no retry budget spent", async () => {
    const server = await serve(
      {
        type: "status",
        status: 429,
        body: { error: { message: "token plan exhausted, please renew your plan", type: "rate_limit_error" } },
      },
      reply.text("never sent"),
    );
    const { run, clock, notifications } = callStack(server);
    const result = await run();
    expect(server.requests).toHaveLength(1);
    expect(clock.scheduledDelays()).toEqual([]);
    expect(classifyError(result.final)).toMatchObject({ code: "quota", status: 429, retryable: false });
    expect(notifications).toEqual([]);
  });

  it("an overflow text on a 503 is transient: retried, never handed to overflow recovery", async () => {
    const server = await serve(
      reply.status(503, "prompt is too long: 213462 tokens > 200000 maximum"),
      reply.text("second try"),
    );
    const recover = vi.fn<OverflowRecover>(async () => userContext("compacted"));
    const { run } = callStack(server, { recover });
    const result = await run();
    expect(result.text).toBe("second try");
    expect(recover).not.toHaveBeenCalled();
    expect(server.requests).toHaveLength(2);
  });

  it("a server error sent as a stream's error event before any output (no status) is retried", async () => {
    const serverError = {
      error: {
        message: "The server had an error while processing your request. Sorry about that!",
        type: "server_error",
      },
    };
    const server = await serve({ type: "sse", chunks: [serverError] }, reply.text("second try"));
    const { run, notifications } = callStack(server);
    const result = await run();
    expect(result.text).toBe("second try");
    expect(server.requests).toHaveLength(2);
    expect(notifications[0]).toMatchObject({ type: "waiting", error: { code: "upstream", retryable: true } });
  });
});
