import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../src/index.js";
import { assistantMessage, toolResultMessage } from "../src/testing/index.js";
import { assertEventGrammar } from "./support/event-grammar.js";
import { user } from "./support/scenario.js";

/** The checker every scenario relies on must itself reject broken runs. */
describe("the event-grammar checker", () => {
  const prompt = user("go");
  const answer = assistantMessage("hi");
  const withCall = assistantMessage({ type: "toolCall", id: "c1", name: "work", arguments: {} });
  const result = toolResultMessage("c1", "work", "done");

  const valid: AgentEvent[] = [
    { type: "agent_start" },
    { type: "turn_start" },
    { type: "message_start", message: prompt },
    { type: "message_end", message: prompt },
    { type: "message_start", message: withCall },
    { type: "message_end", message: withCall },
    { type: "tool_execution_start", toolCallId: "c1", toolName: "work", args: {} },
    { type: "tool_execution_end", toolCallId: "c1", toolName: "work", result: {}, isError: false },
    { type: "message_start", message: result },
    { type: "message_end", message: result },
    { type: "turn_end", message: withCall, toolResults: [result] },
    { type: "turn_start" },
    { type: "message_start", message: answer },
    { type: "message_end", message: answer },
    { type: "turn_end", message: answer, toolResults: [] },
    { type: "agent_end", messages: [prompt, withCall, result, answer] },
  ];

  it("accepts a well-formed run", () => {
    expect(() => assertEventGrammar(valid)).not.toThrow();
  });

  const broken: [string, (events: AgentEvent[]) => AgentEvent[], RegExp][] = [
    ["no agent_start first", (events) => events.slice(1), /first event is not agent_start/],
    ["no agent_end", (events) => events.slice(0, -1), /no agent_end/],
    ["an event after agent_end", (events) => [...events, { type: "turn_start" }], /agent_end is not last/],
    ["nested turns", (events) => events.filter((_, index) => index !== 10), /turn_start inside a turn/],
    ["an unclosed message", (events) => events.filter((_, index) => index !== 3), /another message is open/],
    [
      "a tool call without a result",
      (events) => events.filter((_, index) => index !== 8 && index !== 9),
      /toolResults differ|no result/,
    ],
    ["a tool end without start", (events) => events.filter((_, index) => index !== 6), /not running/],
    [
      "agent_end messages that differ from message_end",
      (events) => [...events.slice(0, -1), { type: "agent_end", messages: [prompt, answer] }],
      /agent_end.messages/,
    ],
  ];
  for (const [name, breakRun, message] of broken) {
    it(`rejects ${name}`, () => {
      expect(() => assertEventGrammar(breakRun([...valid]))).toThrow(message);
    });
  }
});
