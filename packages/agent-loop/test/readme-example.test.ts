import { Type } from "@sinclair/typebox";
import { expect, it } from "vitest";
import { Agent, type AgentTool } from "../src/index.js";
import { createScriptedModel, response, toolCall } from "../src/testing/index.js";

/** The README's example, kept runnable: same code, relative imports. */
it("the README example runs and prints a streamed run", async () => {
  const printed: string[] = [];
  const print = (text: string) => printed.push(text);

  // --- README example (imports aside) ---
  const parameters = Type.Object({ a: Type.Number(), b: Type.Number() });
  const add: AgentTool<typeof parameters> = {
    name: "add",
    label: "Add",
    description: "Adds two numbers",
    parameters,
    execute: async (_id, { a, b }) => ({ content: [{ type: "text", text: String(a + b) }], details: { sum: a + b } }),
  };

  const scripted = createScriptedModel([
    response(toolCall("add", { a: 2, b: "3" })), // "3" is coerced to 3 by the schema
    "2 + 3 = 5",
  ]);
  const agent = new Agent({ initialState: { model: scripted.model, tools: [add] }, streamFn: scripted.streamFn });
  agent.subscribe((event) => {
    if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta")
      print(event.assistantMessageEvent.delta);
    if (event.type === "tool_execution_end") print(`[${event.toolName} ${event.isError ? "failed" : "ok"}]`);
  });
  await agent.prompt("What is 2 + 3?");
  // --- end of the README example ---

  expect(printed.join("")).toBe("[add ok]2 + 3 = 5");
  expect(agent.state.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
});
