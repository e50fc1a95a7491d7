/**
 * Where a compaction cuts a history: never between a tool call and its
 * result, possibly inside one long turn, and nowhere when nothing can be
 * summarised.
 */
import type { AgentMessage } from "@turnkit/agent-loop";
import { assistantMessage, toolCall, toolResultMessage, usageOf, userMessage } from "@turnkit/agent-loop/testing";
import { describe, expect, it } from "vitest";
import { estimateContextTokens, estimateMessageTokens, findCompactionCut } from "../../src/index.js";

const words = (count: number) => "word ".repeat(count).trim();

/** One step of a turn: an assistant message with calls `ids`, then their results (each ~`size` tokens). */
function step(ids: string[], size = 100): AgentMessage[] {
  return [
    assistantMessage(ids.map((id) => toolCall("read", { path: `${id}.ts` }, { id }))),
    ...ids.map((id) => toolResultMessage(id, "read", "x".repeat(size * 4))),
  ];
}

/** Every tool result in `messages` has its call in `messages`. */
function everyResultHasItsCall(messages: readonly AgentMessage[]): boolean {
  const calls = new Set<string>();
  for (const message of messages) {
    if (message.role === "assistant")
      for (const block of message.content) if (block.type === "toolCall") calls.add(block.id);
    if (message.role === "toolResult" && !calls.has(message.toolCallId)) return false;
  }
  return true;
}

describe("findCompactionCut", () => {
  it("never cuts between a tool call and its result, also among parallel calls", () => {
    const history = [userMessage(words(50)), ...step(["a"]), ...step(["b", "c", "d"]), ...step(["e"])];
    // Keeping ~150 tokens reaches into the results of the three parallel calls.
    for (let keep = 1; keep <= 700; keep += 7) {
      const cut = findCompactionCut(history, { keepRecentTokens: keep });
      if (!cut) continue;
      expect(history[cut.index]!.role).not.toBe("toolResult");
      expect(everyResultHasItsCall(history.slice(cut.index))).toBe(true);
    }
    const cut = findCompactionCut(history, { keepRecentTokens: 150 });
    // The keep budget is reached inside the parallel step's results; the nearest cut point after it is the last step.
    expect(cut).toEqual({ index: 7, splitTurn: true });
  });

  it("splits one long turn at an assistant message when the turn has no other cut point", () => {
    const history = [userMessage("Fix the bug."), ...step(["a"], 400), ...step(["b"], 400), ...step(["c"], 400)];
    const cut = findCompactionCut(history, { keepRecentTokens: 500 });
    expect(cut).toEqual({ index: 5, splitTurn: true });
    expect(history[5]!.role).toBe("assistant");
  });

  it("prefers the nearest cut point after the keep budget; takes one before it only when none follows", () => {
    const history = [userMessage("one"), assistantMessage(words(400)), userMessage(words(100)), ...step(["a"], 2_000)];
    // The keep budget is reached at the tool result; no cut point follows it, so the one before (the assistant) is used.
    expect(findCompactionCut(history, { keepRecentTokens: 100 })).toEqual({ index: 3, splitTurn: true });
    expect(findCompactionCut(history, { keepRecentTokens: 2_100 })).toEqual({ index: 2, splitTurn: false });
  });

  it("finds nothing when everything fits the keep budget, or only an earlier summary precedes the cut", () => {
    const history = [userMessage("one"), assistantMessage("short"), userMessage("two")];
    expect(findCompactionCut(history, { keepRecentTokens: 1_000 })).toBeUndefined();
    expect(findCompactionCut(history, { keepRecentTokens: 1, start: 2 })).toBeUndefined();
    expect(findCompactionCut(history, { keepRecentTokens: 1, start: 1 })).toEqual({ index: 2, splitTurn: false });
  });

  it("finds nothing when only host-only messages would be summarised", () => {
    const history: AgentMessage[] = [{ role: "host", kind: "note", timestamp: 1 }, userMessage(words(200))];
    expect(findCompactionCut(history, { keepRecentTokens: 100 })).toBeUndefined();
  });
});

describe("estimateContextTokens", () => {
  it("starts from the provider's usage of the newest normal response and estimates what follows it", () => {
    const history = [
      userMessage("question"),
      assistantMessage([toolCall("read", { path: "a.ts" }, { id: "a" })], { usage: usageOf(90_000, 100) }),
      toolResultMessage("a", "read", "x".repeat(4_000)),
    ];
    expect(estimateContextTokens(history)).toEqual({ tokens: 90_100 + 1_000, usageIndex: 1 });
  });

  it("passes over a 429 or 529 response without usage, so the history behind it still counts", () => {
    const history = [
      userMessage("question"),
      assistantMessage("a long answer", { usage: usageOf(150_000, 500) }),
      userMessage("next"),
      assistantMessage("", { stopReason: "error", errorMessage: "529 overloaded_error: Overloaded" }),
    ];
    const estimate = estimateContextTokens(history);
    expect(estimate.usageIndex).toBe(1);
    expect(estimate.tokens).toBe(150_500 + estimateMessageTokens(history[2]!));
  });

  it("does not trust usage before `usableFrom` (responses kept by a compaction) and then estimates everything", () => {
    const history = [userMessage(words(100)), assistantMessage("answer", { usage: usageOf(150_000, 500) })];
    const estimate = estimateContextTokens(history, 2);
    expect(estimate.usageIndex).toBe(-1);
    expect(estimate.tokens).toBe(estimateMessageTokens(history[0]!) + estimateMessageTokens(history[1]!));
    expect(estimate.tokens).toBeLessThan(200);
  });
});

describe("malformed input", () => {
  it("findCompactionCut and the estimates refuse what is no list or no message, naming the argument", () => {
    expect(() => findCompactionCut(undefined as never, { keepRecentTokens: 1 })).toThrow(
      new TypeError("findCompactionCut: messages must be an array, got undefined"),
    );
    expect(() => findCompactionCut([], null as never)).toThrow(
      new TypeError("findCompactionCut: options must be an object, got null"),
    );
    expect(() => findCompactionCut([], { keepRecentTokens: "10" as never })).toThrow(
      new TypeError('findCompactionCut: options.keepRecentTokens must be a number, got "10"'),
    );
    expect(() => findCompactionCut([userMessage("a"), null] as never, { keepRecentTokens: 1 })).toThrow(
      new TypeError("findCompactionCut: messages[1] must be a message object, got null"),
    );
    expect(() => estimateContextTokens(null as never)).toThrow(
      new TypeError("estimateContextTokens: messages must be an array, got null"),
    );
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(() => findCompactionCut([], proxy as never)).toThrow(
      new TypeError("findCompactionCut: options must be an object, got an unreadable value"),
    );
    expect(() => findCompactionCut([proxy] as never, { keepRecentTokens: 1 })).toThrow(
      new TypeError("findCompactionCut: messages[0] must be a message object, got an unreadable value"),
    );
    expect(() => estimateContextTokens([], Symbol("from") as never)).toThrow(
      new TypeError("estimateContextTokens: usableFrom must be a number, got symbol"),
    );
    expect(() => estimateContextTokens([userMessage("a"), null] as never)).toThrow(
      new TypeError("estimateContextTokens: messages[1] must be a message object, got null"),
    );
    expect(() => estimateMessageTokens(undefined as never)).toThrow(
      new TypeError("estimateMessageTokens: message must be a message object, got undefined"),
    );
  });

  it("a malformed message is estimated from what is well formed in it, never a crash", () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const odd = [
      { role: "user", content: null },
      { role: "toolResult", content: 5 },
      { role: "assistant", content: [null, { type: "text", text: "four" }] },
      { role: "assistant", content: [{ type: "toolCall", name: "t", arguments: { n: 1n } }] },
      { role: "user", content: proxy },
    ] as unknown as AgentMessage[];
    expect(odd.map((message) => estimateMessageTokens(message))).toEqual([0, 0, 1, 1, 0]);
    expect(estimateContextTokens(odd)).toEqual({ tokens: 2, usageIndex: -1 });
    expect(findCompactionCut([...odd, userMessage("x".repeat(400))], { keepRecentTokens: 10 })).toBeDefined();
  });
});
