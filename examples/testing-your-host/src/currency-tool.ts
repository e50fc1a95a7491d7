import { Type } from "@sinclair/typebox";
import { defineRuntimeTool } from "@turnkit/agent-core";

/** Units of one euro, by currency code. A fixed table, so answers are reproducible. */
export const EUR_RATES: Readonly<Record<string, number>> = { EUR: 1, USD: 1.09, GBP: 0.85, JPY: 169 };

/** The host's one tool: converts an amount between two currencies of {@link EUR_RATES}. */
export const currencyTool = defineRuntimeTool({
  name: "convert_currency",
  description: "Converts an amount of money from one currency to another (EUR, USD, GBP, JPY).",
  parameters: Type.Object({ amount: Type.Number(), from: Type.String(), to: Type.String() }),
  executionMode: "parallel",
  execute: (_ctx, { amount, from, to }) => {
    const fromRate = EUR_RATES[from.toUpperCase()];
    const toRate = EUR_RATES[to.toUpperCase()];
    if (fromRate === undefined || toRate === undefined) {
      return {
        content: [{ type: "text", text: `Unknown currency: ${fromRate === undefined ? from : to}` }],
        isError: true,
      };
    }
    const converted = ((amount / fromRate) * toRate).toFixed(2);
    return { content: [{ type: "text", text: `${amount} ${from.toUpperCase()} = ${converted} ${to.toUpperCase()}` }] };
  },
});
