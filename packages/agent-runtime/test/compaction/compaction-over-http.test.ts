/**
 * The compaction extension against pi-ai's real openai-completions provider
 * and a fake chat-completions server: the provider's reported usage drives
 * the threshold, the summary request is a real HTTP request whose usage is
 * the turn's auxiliary usage, a 429 or 529 is never taken for an overflow,
 * and a real overflow answer is recovered through a compaction.
 */
import type { AgentMessage } from "@turnkit/agent-loop";
import { usageOf, userMessage } from "@turnkit/agent-core/testing";
import { describe, expect, it } from "vitest";
import { COMPACTION_SUMMARY_SYSTEM_PROMPT, type CompactionRecord } from "../../src/index.js";
import { reportedHistory, runCompactedTurn } from "../support/compacted-turn.js";
import { type FakeChatServer, fakeModel, reply, serveChat } from "../support/fake-chat-server.js";

/** Runs one turn on `server` with a 10,000-token window and a 1,000-token reserve. */
function turnOn(server: FakeChatServer, history: AgentMessage[], recoverOverflow = true) {
  return runCompactedTurn({
    compaction: { reserveTokens: 1_000, keepRecentTokens: 1_000, summaryMaxTokens: 512, recoverOverflow },
    input: {
      history,
      userMessage: { text: "Next question." },
      llm: { model: fakeModel(server.baseUrl, 10_000), streamFn: undefined, apiKey: "sk-test" },
    },
  });
}

const systemOf = (request: FakeChatServer["requests"][number]) =>
  request.body.messages.find((message) => message.role === "system" || message.role === "developer")?.content;

describe("compaction over HTTP", () => {
  it("compacts on the provider's reported usage; the summary is one more HTTP request, counted as auxiliary usage", async () => {
    const server = await serveChat(
      reply.text("They discussed the earlier question.", 2_600, 40),
      reply.text("Answer.", 1_500, 5),
    );
    const turn = await turnOn(server, reportedHistory());

    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(server.requests).toHaveLength(2);
    expect(systemOf(server.requests[0]!)).toBe(COMPACTION_SUMMARY_SYSTEM_PROMPT);
    const summaryBody = server.requests[0]!.body;
    expect(summaryBody.max_tokens ?? summaryBody.max_completion_tokens).toBe(512);
    expect(JSON.stringify(summaryBody.messages)).toContain("Earlier question");
    expect(JSON.stringify(summaryBody.messages)).not.toContain("Recent question");
    const sent = JSON.stringify(server.requests[1]!.body.messages);
    expect(sent).toContain("They discussed the earlier question.");
    expect(sent).toContain("Recent question");
    expect(sent).not.toContain("Earlier question");

    const record = (turn.transcript[0] as { data: CompactionRecord }).data;
    expect(record).toMatchObject({ reason: "threshold", summaryModel: "openai/fake-model", summarisedMessages: 2 });
    expect(record.summaryUsage).toMatchObject({ input: 2_600, output: 40 });
    const terminal = turn.events.at(-1)!;
    expect(terminal.type === "session.status" && terminal.payload.usage).toMatchObject({
      auxiliary: { input: 2_600, output: 40 },
      main: { input: 1_500, output: 5 },
    });
  });

  it("a 429 on the summary request: the main request goes out with the whole history", async () => {
    const server = await serveChat(reply.status(429, "Rate limit reached for requests"), reply.text("Answer."));
    const turn = await turnOn(server, reportedHistory());
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]!.body.messages)).toContain("Earlier question");
    expect(turn.transcript.slice(0, 4)).toEqual(reportedHistory());
    expect(turn.notices).toMatchObject([{ type: "summary_failed", error: { code: "rate_limited" } }]);
  });

  it.each([
    [429, "Request too large for fake-model on tokens per min (TPM): Limit 30000, Requested 45000.", "rate_limited"],
    [529, "Overloaded", "upstream"],
  ])(
    "a %i on the main request is not an overflow: no summary request, the turn fails with its code",
    async (status, message, code) => {
      const server = await serveChat(reply.status(status, message), reply.text("never sent"));
      const turn = await turnOn(server, [userMessage("short", { timestamp: 1 })]);
      expect(turn.outcome).toMatchObject({ kind: "failed", error: { code } });
      expect(server.requests).toHaveLength(1);
      expect(turn.notices).toEqual([]);
    },
  );

  it("a real overflow answer (400, maximum context length) is recovered through a compaction and resent once", async () => {
    const server = await serveChat(
      reply.status(
        400,
        "This model's maximum context length is 10000 tokens. However, your messages resulted in 12034 tokens.",
      ),
      reply.text("Summary of the earlier question."),
      reply.text("Answer after recovery."),
    );
    const history = reportedHistory().map((message) =>
      message.role === "assistant" ? { ...message, usage: usageOf(0, 0) } : message,
    );
    const turn = await turnOn(server, history);
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(server.requests.map((request) => systemOf(request) === COMPACTION_SUMMARY_SYSTEM_PROMPT)).toEqual([
      false,
      true,
      false,
    ]);
    expect(JSON.stringify(server.requests[2]!.body.messages)).toContain("Summary of the earlier question.");
    expect(turn.writer.text()).toBe("Answer after recovery.");
    expect((turn.transcript[0] as { data: CompactionRecord }).data.reason).toBe("overflow");
  });

  it("the same overflow with recoverOverflow off fails the turn with context_overflow", async () => {
    const server = await serveChat(reply.status(400, "This model's maximum context length is 10000 tokens."));
    const turn = await turnOn(server, [userMessage("short", { timestamp: 1 })], false);
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: "context_overflow" } });
    expect(server.requests).toHaveLength(1);
  });
});
