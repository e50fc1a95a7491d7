import { describe, expect, it } from "vitest";
import { response, text, toolCall } from "@turnkit/agent-loop/testing";
import { ErrorCode } from "@turnkit/protocol";
import { TURN_DEFAULTS } from "../../src/defaults.js";
import type { AfterLlmCallHook, LlmCallPreparedEvent } from "../../src/pi-turn-runner/turn-hooks.js";
import { createRecordingTool, runCheckedTurn } from "@turnkit/agent-core/testing";
import { messageText, requestRoles, resolvedToolChunks, terminalStatus, userTexts } from "../support/turn-queries.js";

describe("onLlmCallPreparedHook", () => {
  it("observes each request as sent, without the api key, signal or functions", async () => {
    const seen: LlmCallPreparedEvent[] = [];
    const tool = createRecordingTool("look", { executionMode: "parallel" });
    const turn = await runCheckedTurn({
      script: [response([toolCall("look")]), "done"],
      input: {
        tools: [tool],
        llm: { apiKey: "sk-secret-123" },
        hooks: { onLlmCallPreparedHook: (event) => void seen.push(event) },
      },
    });
    expect(turn.outcome.kind).toBe("completed");
    expect(seen.map((event) => event.requestIndex)).toEqual([0, 1]);
    expect(seen[1]!.context.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult"]);
    expect(seen[0]!.model.provider).toBe("scripted");
    for (const event of seen) {
      expect(event.options).not.toHaveProperty("apiKey");
      expect(event.options).not.toHaveProperty("signal");
      expect(Object.values(event.options).some((value) => typeof value === "function")).toBe(false);
      expect(JSON.stringify(event)).not.toContain("sk-secret-123");
    }
    // The key itself still reaches the provider: getApiKey answers for the turn's provider.
    expect(turn.requests[0]!.options.apiKey).toBe("sk-secret-123");
  });

  it("a hook that throws or rejects is ignored: the request is sent and the turn completes", async () => {
    const turn = await runCheckedTurn({
      script: ["fine"],
      input: {
        hooks: {
          onLlmCallPreparedHook: [
            () => {
              throw new Error("observer broke");
            },
            async () => {
              throw new Error("observer rejected");
            },
          ],
        },
      },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests).toHaveLength(1);
  });
});

describe("afterLlmCallHook", () => {
  it("continue keeps the response", async () => {
    const turn = await runCheckedTurn({
      script: ["kept"],
      input: { hooks: { afterLlmCallHook: () => ({ type: "continue" }) } },
    });
    expect(messageText(turn.delivered[1]!)).toBe("kept");
    expect(turn.requests).toHaveLength(1);
    expect(turn.writer.statuses()).toEqual(["running", "completed"]);
    expect(turn.writer.chunksOf("msg_1").at(-1)).toMatchObject({ kind: "finish", reason: "stop" });
  });

  it("replaceText rewrites the persisted text (thinking and tool calls kept); the next request carries the new text", async () => {
    const tool = createRecordingTool("look", { executionMode: "parallel" });
    const turn = await runCheckedTurn({
      script: [response([text("my secret is 42"), toolCall("look", { value: "x" })]), "done"],
      input: {
        tools: [tool],
        hooks: {
          afterLlmCallHook: (event) =>
            event.requestIndex === 0 ? { type: "replaceText", text: "my secret is [redacted]" } : undefined,
        },
      },
    });
    expect(turn.outcome.kind).toBe("completed");
    expect(tool.calls).toHaveLength(1);
    const rewritten = turn.delivered[1]!;
    expect(messageText(rewritten)).toBe("my secret is [redacted]");
    expect((rewritten as { content: { type: string }[] }).content.map((block) => block.type)).toEqual([
      "text",
      "toolCall",
    ]);
    // Not just "42": message timestamps (Date.now()) can contain those digits.
    expect(JSON.stringify(turn.requests[1]!.context.messages)).not.toContain("my secret is 42");
    expect(JSON.stringify(turn.requests[1]!.context.messages)).toContain("[redacted]");
    // The persisted event carries the rewritten message too.
    expect(JSON.stringify(turn.writer.ofType("message.persisted"))).not.toContain("my secret is 42");
  });

  it(`retry drops the response (tool calls not executed), asks again with a hidden prompt, and is bounded at ${TURN_DEFAULTS.afterLlmHookMaxRetries}`, async () => {
    const tool = createRecordingTool("danger", { executionMode: "parallel" });
    const retriesSeen: number[] = [];
    const alwaysRetry: AfterLlmCallHook = (event) => {
      retriesSeen.push(event.retriesUsed);
      return { type: "retry", reason: "not good enough", prompt: `Please try again (${event.retriesUsed + 1}).` };
    };
    const turn = await runCheckedTurn({
      script: [response([text("bad one"), toolCall("danger")]), "bad two", "good enough"],
      input: { tools: [tool], hooks: { afterLlmCallHook: alwaysRetry } },
    });

    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests).toHaveLength(3);
    expect(retriesSeen).toEqual([0, 1, 2]);
    expect(tool.calls).toHaveLength(0);
    // The dropped responses are in no later request; the prompts are, as user input.
    expect(requestRoles(turn.requests[1]!)).toEqual(["user", "user"]);
    expect(userTexts(turn.requests[1]!)).toEqual(["hello", "Please try again (1)."]);
    expect(userTexts(turn.requests[2]!)).toEqual(["hello", "Please try again (1).", "Please try again (2)."]);
    expect(JSON.stringify(turn.requests[2]!.context.messages)).not.toContain("bad");
    // History: the prompts are hidden messages; dropped responses are never delivered.
    expect(turn.delivered.map((message) => message.role)).toEqual(["user", "hidden", "hidden", "assistant"]);
    expect(messageText(turn.delivered[3]!)).toBe("good enough");
    expect(JSON.stringify(turn.historyChanges)).not.toContain("bad one");
    // The third retry is ignored with a warning.
    const warnings = turn.writer.traces("warn");
    expect(
      warnings.some(
        (trace) =>
          trace.message.includes("retry ignored") && trace.attrs?.budget === TURN_DEFAULTS.afterLlmHookMaxRetries,
      ),
    ).toBe(true);
    // No call chunk of the dropped response resolves: it never ran.
    expect(resolvedToolChunks(turn.events)).toHaveLength(0);
  });

  it("fail strips the tool calls (not executed) and fails the turn with code hook", async () => {
    const tool = createRecordingTool("danger", { executionMode: "parallel" });
    const turn = await runCheckedTurn({
      script: [response([text("I will rm -rf"), toolCall("danger")]), "never"],
      input: { tools: [tool], hooks: { afterLlmCallHook: () => ({ type: "fail", reason: "unsafe plan" }) } },
    });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Hook } });
    expect((turn.outcome as { message: string }).message).toContain("unsafe plan");
    expect(tool.calls).toHaveLength(0);
    expect(turn.requests).toHaveLength(1);
    const answer = turn.delivered[1]!;
    expect((answer as { content: { type: string }[] }).content.map((block) => block.type)).toEqual(["text"]);
    expect(terminalStatus(turn.events)).toMatchObject({ status: "failed", error: { code: ErrorCode.Hook } });
  });

  it("a hook that throws fails the turn like fail", async () => {
    const tool = createRecordingTool("danger", { executionMode: "parallel" });
    const turn = await runCheckedTurn({
      script: [response([toolCall("danger")]), "never"],
      input: {
        tools: [tool],
        hooks: {
          afterLlmCallHook: () => {
            throw new Error("checker crashed");
          },
        },
      },
    });
    expect(turn.outcome).toMatchObject({ kind: "failed", error: { code: ErrorCode.Hook } });
    expect(tool.calls).toHaveLength(0);
    expect(turn.requests).toHaveLength(1);
  });
});
