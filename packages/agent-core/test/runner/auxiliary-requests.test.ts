import { describe, expect, it } from "vitest";
import { assistantMessage, createScriptedModel, createVirtualClock, userMessage } from "@turnkit/agent-loop/testing";
import type { AgentMessage } from "@turnkit/agent-loop";
import type { BeforeLlmCallHook } from "../../src/pi-turn-runner/turn-hooks.js";
import { runCheckedTurn } from "@turnkit/agent-core/testing";
import { userTexts } from "../support/turn-queries.js";

const history = (): AgentMessage[] => [
  userMessage("a long earlier question", { timestamp: 1 }),
  assistantMessage("a long earlier answer", { timestamp: 2 }),
];

/** A compaction hook that summarises the history with the auxiliary stream function. */
const compactWithSummary: BeforeLlmCallHook = async (event) => {
  if (event.requestIndex !== 0) return undefined;
  const stream = await event.auxiliaryStreamFn(event.model, {
    systemPrompt: "Summarise the conversation.",
    messages: [userMessage(event.messages.map((message) => JSON.stringify(message)).join("\n"))],
  });
  const summary = await stream.result();
  const text = summary.content.map((block) => (block.type === "text" ? block.text : "")).join("");
  return {
    type: "replaceMessages",
    messages: [userMessage(`Summary: ${text}`), event.messages[event.messages.length - 1]!],
  };
};

describe("auxiliary requests from hooks (a separate retry wrapper)", () => {
  it("a compaction hook asks the model through auxiliaryStreamFn; only its summary enters the transcript", async () => {
    const turn = await runCheckedTurn({
      script: ["They talked about the weather.", "Here is my answer."],
      input: { history: history(), llm: { apiKey: "turn-key" }, hooks: { beforeLlmCallHook: compactWithSummary } },
    });
    expect(turn.outcome.kind).toBe("completed");
    expect(turn.requests).toHaveLength(2);
    // The auxiliary request carried the turn's key and its own context.
    expect(turn.requests[0]!.options.apiKey).toBe("turn-key");
    expect(turn.requests[0]!.context.systemPrompt).toBe("Summarise the conversation.");
    // The main request sees the compacted history.
    expect(userTexts(turn.requests[1]!)).toEqual(["Summary: They talked about the weather.", "hello"]);
    const replaced = turn.historyChanges.find((change) => change.reason === "replaceMessages");
    expect(replaced?.messages).toHaveLength(2);
    expect(turn.writer.text()).toBe("Here is my answer.");
  });

  it("a model of another provider gets neither the turn's key nor its headers; one of the turn's provider gets both", async () => {
    const askOther =
      (provider: string | undefined): BeforeLlmCallHook =>
      async (event) => {
        if (event.requestIndex !== 0) return undefined;
        const model = provider === undefined ? event.model : { ...event.model, provider };
        await (await event.auxiliaryStreamFn(model, { messages: [userMessage("Summarise.")] })).result();
        return undefined;
      };
    const llm = { apiKey: "turn-key", headers: { authorization: "Bearer turn-key", "x-trace": "t1" } };
    const other = await runCheckedTurn({
      script: ["A summary.", "The answer."],
      input: { llm, hooks: { beforeLlmCallHook: askOther("another-provider") } },
    });
    expect(other.requests).toHaveLength(2);
    expect(other.requests[0]!.options.apiKey).toBeUndefined();
    expect(other.requests[0]!.options.headers).toBeUndefined();
    // The main request, to the turn's provider, still carries them.
    expect(other.requests[1]!.options).toMatchObject({ apiKey: "turn-key", headers: llm.headers });

    const same = await runCheckedTurn({
      script: ["A summary.", "The answer."],
      input: { llm, hooks: { beforeLlmCallHook: askOther(undefined) } },
    });
    expect(same.requests[0]!.options).toMatchObject({ apiKey: "turn-key", headers: llm.headers });
  });

  it("an auxiliary 503 is retried under its own label, on the injected clock", async () => {
    const clock = createVirtualClock();
    const model = createScriptedModel(
      [
        assistantMessage("", { stopReason: "error", errorMessage: "503 Service Unavailable" }),
        "Summary text.",
        "Main answer.",
      ],
      { clock },
    );
    const run = runCheckedTurn({
      model,
      // The harness turns retry off by default; this test is about retry.
      input: { history: history(), llmRetry: {}, hooks: { beforeLlmCallHook: compactWithSummary } },
      runnerOptions: { clock, random: () => 0.5 },
    });
    while (model.requests.length < 3) await clock.advance(1_000);
    const turn = await run;
    expect(turn.outcome.kind).toBe("completed");
    expect(model.requests.map((request) => request.context.systemPrompt)).toEqual([
      "Summarise the conversation.",
      "Summarise the conversation.",
      "You are a scripted test assistant.",
    ]);
    const retryTraces = turn.writer.traces().filter((trace) => trace.phase === "llm.retry");
    expect(retryTraces.map((trace) => [trace.message, trace.attrs?.label])).toEqual([
      ["waiting", "auxiliary"],
      ["recovered", "auxiliary"],
    ]);
    expect(turn.writer.text()).toBe("Main answer.");
  });
});
