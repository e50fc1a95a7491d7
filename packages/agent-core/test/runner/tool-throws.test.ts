/**
 * Whatever a tool throws is that call's error result and the turn goes on,
 * also a value whose text cannot be read: before, its `toString` failing
 * inside the loop failed the whole turn, blamed on the provider.
 */
import { Type } from "@sinclair/typebox";
import { response, toolCall } from "@turnkit/agent-loop/testing";
import { runCheckedTurn } from "@turnkit/agent-core/testing";
import { describe, expect, it } from "vitest";
import { defineRuntimeTool } from "../../src/index.js";

describe("a tool that throws a value whose text cannot be read", () => {
  it("gets an error result saying so; the turn completes", async () => {
    const tool = defineRuntimeTool({
      name: "careless",
      description: "Throws something odd",
      parameters: Type.Object({}),
      execute: () => {
        throw {
          toString(): string {
            throw new Error("toString failed");
          },
        };
      },
    });
    const turn = await runCheckedTurn({
      script: [response(toolCall("careless", {}, { id: "call-1" })), "done"],
      input: { tools: [tool] },
    });
    expect(turn.outcome).toEqual({ kind: "completed" });
    expect(turn.transcript.find((message) => message.role === "toolResult")).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "Threw an object whose text could not be read" }],
    });
  });
});
