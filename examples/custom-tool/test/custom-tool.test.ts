import { describe, expect, it } from "vitest";
import { toRuntimeTool } from "@turnkit/agent-core";
import { requestText, response, runScriptedTurn, toolCall } from "@turnkit/agent-core/testing";
import { runCustomToolDemo } from "../src/custom-tool.js";
import { distanceTool } from "../src/distance-tool.js";
import { OrderLookupTool } from "../src/order-lookup-tool.js";

describe("custom-tool example", () => {
  it("runs both tools in one turn and prints each result, the answer and the outcome", async () => {
    const lines: string[] = [];
    const outcome = await runCustomToolDemo((line) => lines.push(line));
    expect(outcome).toEqual({ kind: "completed" });
    expect(lines).toEqual([
      "tool lookup_order (Order lookup, parallel): Looks up the delivery status of an order.",
      "tool km_to_miles (Kilometres to miles, parallel): Converts a distance in kilometres to miles.",
      "user: Where are my orders A-1042 and B-7, and how far away is A-1042 in miles?",
      "assistant: Let me look up both orders.",
      '  ✓ lookup_order({"orderId":"A-1042"}) → A-1042: out for delivery, 42 km to go',
      '      details {"orderId":"A-1042","calledBy":"call_1"}',
      '  ✗ lookup_order({"orderId":"B-7"}) → No order B-7',
      '  ✓ km_to_miles({"km":42}) → 42 km = 26.1 mi',
      '      details {"miles":26.1}',
      "assistant: A-1042 is out for delivery, 42 km (26.1 mi) away. I could not find an order B-7: could you check the number?",
      "outcome: completed after 3 model requests",
    ]);
  });

  it("offers the model both declarations and sends it both results, the failed lookup marked as an error", async () => {
    const orders = new Map([["A-1042", { status: "packed", kmToGo: 5 }]]);
    const turn = await runScriptedTurn({
      script: [
        response([toolCall("lookup_order", { orderId: "A-1042" }), toolCall("lookup_order", { orderId: "Z-1" })]),
        response([toolCall("km_to_miles", { km: 5 })]),
        "A-1042 is packed, 5 km (3.1 mi) away; Z-1 does not exist.",
      ],
      input: { tools: [toRuntimeTool(new OrderLookupTool(orders)), distanceTool] },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.requests[0]!.context.tools?.map((tool) => tool.name)).toEqual(["lookup_order", "km_to_miles"]);
    const results = turn.requests[1]!.context.messages.filter((message) => message.role === "toolResult");
    expect(results.map((message) => [message.toolName, message.isError])).toEqual([
      ["lookup_order", false],
      ["lookup_order", true],
    ]);
    expect(requestText(turn.requests[1]!)).toContain("A-1042: packed, 5 km to go\nNo order Z-1");
    expect(requestText(turn.requests[2]!)).toContain("5 km = 3.1 mi");
  });

  it("answers arguments that break the schema with a validation error, without running the tool", async () => {
    const turn = await runScriptedTurn({
      script: [response([toolCall("km_to_miles", { km: -3 })]), "Distances cannot be negative."],
      input: { tools: [distanceTool] },
    });
    const [result] = turn.requests[1]!.context.messages.filter((message) => message.role === "toolResult");
    expect(result).toMatchObject({ toolName: "km_to_miles", isError: true });
    expect(requestText(turn.requests[1]!)).toContain('Validation failed for tool "km_to_miles"');
    expect(requestText(turn.requests[1]!)).not.toMatch(/-3 km =/);
  });
});
