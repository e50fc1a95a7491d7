import { describe, expect, it } from "vitest";
import { runHostDemo } from "../src/host-demo.js";

describe("testing-your-host example: the demo run", () => {
  it("prints the question, both conversions and the answer", async () => {
    const lines: string[] = [];
    await runHostDemo((line) => lines.push(line));
    expect(lines).toEqual([
      "question: I have 120 EUR and 50 GBP. How many US dollars is that in total?",
      "  ✓ convert_currency → 120 EUR = 130.80 USD",
      "  ✓ convert_currency → 50 GBP = 64.12 USD",
      "answer: 120 EUR is 130.80 USD and 50 GBP is 64.12 USD, so 194.92 USD in total.",
      "(2 tool calls, 2 model requests)",
    ]);
  });
});
