import { createScriptedModel, response, text, toolCall, type ScriptedModel } from "@turnkit/agent-loop/testing";

/** The question `main.ts` asks. */
export const DEMO_QUESTION = "I have 120 EUR and 50 GBP. How many US dollars is that in total?";

/** A scripted model that plays a good run of {@link DEMO_QUESTION}: two conversions in parallel, then the answer. */
export function scriptedDemoModel(): ScriptedModel {
  return createScriptedModel([
    response([
      text("Converting both amounts."),
      toolCall("convert_currency", { amount: 120, from: "EUR", to: "USD" }),
      toolCall("convert_currency", { amount: 50, from: "GBP", to: "USD" }),
    ]),
    response("120 EUR is 130.80 USD and 50 GBP is 64.12 USD, so 194.92 USD in total."),
  ]);
}
