import { describe, expect, it } from "vitest";
import {
  assistantMessage,
  emptyUsage,
  text,
  thinking,
  toolCall,
  toolResultMessage,
  userMessage,
} from "../../src/testing/index.js";

describe("message builders", () => {
  it("userMessage keeps a string, copies blocks and takes a timestamp", () => {
    expect(userMessage("hi", { timestamp: 5 })).toEqual({ role: "user", content: "hi", timestamp: 5 });
    const blocks = [text("a")];
    const message = userMessage(blocks, { timestamp: 5 });
    blocks[0].text = "changed";
    expect(message.content).toEqual([{ type: "text", text: "a" }]);
    expect(typeof userMessage("x").timestamp).toBe("number");
  });

  it("assistantMessage fills the scripted identity, zero usage and a stop reason from its content", () => {
    const plain = assistantMessage("hello", { timestamp: 7 });
    expect(plain).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "hello" }],
      api: "scripted",
      provider: "scripted",
      model: "scripted-model",
      usage: emptyUsage(),
      stopReason: "stop",
      timestamp: 7,
    });
    const withTools = assistantMessage([
      thinking("hmm"),
      toolCall("a", { x: 1 }),
      toolCall("b", {}, { id: "own" }),
      toolCall("c", {}),
    ]);
    expect(withTools.stopReason).toBe("toolUse");
    expect(withTools.content.map((block) => (block.type === "toolCall" ? block.id : block.type))).toEqual([
      "thinking",
      "call_1",
      "own",
      "call_3",
    ]);
    expect(assistantMessage("x", { stopReason: "error", errorMessage: "bad" })).toMatchObject({
      stopReason: "error",
      errorMessage: "bad",
    });
  });

  it("toolResultMessage wraps text, and keeps isError and details", () => {
    expect(toolResultMessage("c1", "read", "body", { timestamp: 3 })).toEqual({
      role: "toolResult",
      toolCallId: "c1",
      toolName: "read",
      content: [{ type: "text", text: "body" }],
      isError: false,
      timestamp: 3,
    });
    expect(toolResultMessage("c2", "bash", [text("no")], { isError: true, details: { code: 1 } })).toMatchObject({
      isError: true,
      details: { code: 1 },
      content: [{ type: "text", text: "no" }],
    });
  });

  it("emptyUsage returns a fresh zero record each call", () => {
    const first = emptyUsage();
    first.input = 9;
    expect(emptyUsage().input).toBe(0);
    expect(emptyUsage()).toEqual({
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    });
  });

  it("script blocks copy tool arguments", () => {
    const args = { nested: { n: 1 } };
    const block = toolCall("t", args);
    args.nested.n = 2;
    expect(block.arguments).toEqual({ nested: { n: 1 } });
    expect(block).not.toHaveProperty("id");
  });
});
