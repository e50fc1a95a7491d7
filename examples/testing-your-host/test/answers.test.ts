/**
 * How the host answers when the model behaves: a scripted model plays the
 * model's side, and the recorded requests show what the host sent it.
 */
import { describe, expect, it } from "vitest";
import {
  createScriptedModel,
  requestText,
  response,
  text,
  toolCall,
  type ScriptEntry,
} from "@turnkit/agent-loop/testing";
import { SYSTEM_PROMPT, answerWithTools, type Progress } from "../src/answer-with-tools.js";

/** The host with a scripted model in place of the provider, recording its progress. */
async function ask(question: string, script: ScriptEntry[]) {
  const model = createScriptedModel(script);
  const progress: Progress[] = [];
  const answer = await answerWithTools(question, {
    llm: { model: model.model, streamFn: model.streamFn },
    onProgress: (update) => progress.push(update),
  });
  return { answer, progress, requests: model.requests };
}

describe("answerWithTools, when the model behaves", () => {
  it("answers with the model's last message, not the 'let me check' before the tool call", async () => {
    const { answer } = await ask("What is 10 EUR in JPY?", [
      response([text("Let me convert that."), toolCall("convert_currency", { amount: 10, from: "EUR", to: "JPY" })]),
      "10 EUR is 1690 JPY.",
    ]);
    expect(answer).toEqual({
      status: "answered",
      text: "10 EUR is 1690 JPY.",
      toolCalls: [
        {
          name: "convert_currency",
          arguments: { amount: 10, from: "EUR", to: "JPY" },
          ok: true,
          result: "10 EUR = 1690.00 JPY",
        },
      ],
    });
  });

  it("sends the system prompt, the question and the tool, then the tool's result", async () => {
    const { requests } = await ask("What is 10 EUR in JPY?", [
      response([toolCall("convert_currency", { amount: 10, from: "EUR", to: "JPY" })]),
      "10 EUR is 1690 JPY.",
    ]);
    expect(requests).toHaveLength(2);
    const [first, second] = requests;
    expect(first!.context.systemPrompt).toBe(SYSTEM_PROMPT);
    expect(requestText(first!)).toBe("What is 10 EUR in JPY?");
    expect(first!.context.tools?.map((tool) => tool.name)).toEqual(["convert_currency"]);
    expect(first!.hasSignal).toBe(true); // the host's requests can always be cancelled
    expect(requestText(second!)).toBe("What is 10 EUR in JPY?\n10 EUR = 1690.00 JPY");
  });

  it("passes a tool's failure back to the model, which can still answer", async () => {
    const { answer, requests } = await ask("What is 5 EUR in bitcoin?", [
      response([toolCall("convert_currency", { amount: 5, from: "EUR", to: "BTC" })]),
      "I can only convert between EUR, USD, GBP and JPY.",
    ]);
    const toolResult = requests[1]!.context.messages.find((message) => message.role === "toolResult");
    expect(toolResult).toMatchObject({ isError: true, content: [{ type: "text", text: "Unknown currency: BTC" }] });
    expect(answer).toMatchObject({ status: "answered", text: "I can only convert between EUR, USD, GBP and JPY." });
    expect(answer.status === "answered" && answer.toolCalls.map((call) => call.ok)).toEqual([false]);
  });

  it("reports progress in order: streamed text, then each finished tool call", async () => {
    const { progress } = await ask("Convert 1 GBP and 1 USD to EUR.", [
      response([
        text("Two conversions."),
        toolCall("convert_currency", { amount: 1, from: "GBP", to: "EUR" }),
        toolCall("convert_currency", { amount: 1, from: "USD", to: "EUR" }),
      ]),
      "1 GBP is 1.18 EUR; 1 USD is 0.92 EUR.",
    ]);
    const streamed = progress.flatMap((update) => (update.type === "text" ? [update.delta] : []));
    expect(streamed.join("")).toBe("Two conversions.1 GBP is 1.18 EUR; 1 USD is 0.92 EUR.");
    expect(progress.filter((update) => update.type !== "text")).toEqual([
      { type: "tool", name: "convert_currency", ok: true, result: "1 GBP = 1.18 EUR" },
      { type: "tool", name: "convert_currency", ok: true, result: "1 USD = 0.92 EUR" },
    ]);
  });
});
