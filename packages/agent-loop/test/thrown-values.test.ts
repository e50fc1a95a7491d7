/**
 * Whatever a tool or tool hook throws becomes that call's error result, also
 * a value whose text cannot be read (a `toString` or `message` getter that
 * throws, a revoked proxy): the run goes on, and the result's text is always a string.
 */
import { describe, expect, it } from "vitest";
import { errorText, thrownText } from "../src/internal.js";
import { response, toolCall } from "../src/testing/index.js";
import { createAgentScenario, testTool } from "./support/scenario.js";

const unreadableObject = {
  toString(): string {
    throw new Error("toString failed");
  },
};
const unreadableError = Object.defineProperty(new Error("hidden"), "message", {
  get(): never {
    throw new Error("message getter failed");
  },
});
const numericMessage = Object.assign(new Error(), { message: 42 });
const revoked = Proxy.revocable({}, {});
revoked.revoke();

describe("a thrown value whose text cannot be read", () => {
  it.each<[string, unknown, string]>([
    ["an object whose toString throws", unreadableObject, "Threw an object whose text could not be read"],
    ["an Error whose message getter throws", unreadableError, "Threw an Error whose text could not be read"],
    ["an Error whose message is a number", numericMessage, "42"],
    // Not even `instanceof` can look at it; before, the run failed with "Cannot perform 'getPrototypeOf' ...".
    ["a revoked proxy", revoked.proxy, "Threw an object whose text could not be read"],
  ])("from execute: %s is the call's error result, the run goes on", async (_name, thrown, text) => {
    const { agent } = createAgentScenario([response(toolCall("work", {})), "done"], {
      tools: [
        testTool("work", {
          execute: async () => {
            throw thrown;
          },
        }),
      ],
    });
    await agent.prompt("go");
    expect(agent.state.messages.find((message) => message.role === "toolResult")).toMatchObject({
      isError: true,
      content: [{ type: "text", text }],
    });
    expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
    expect(agent.state.errorMessage).toBeUndefined();
  });

  it("from beforeToolCall and afterToolCall, too", async () => {
    for (const hook of ["beforeToolCall", "afterToolCall"] as const) {
      const { agent } = createAgentScenario([response(toolCall("work", {})), "done"], {
        tools: [testTool("work")],
        [hook]: async () => {
          throw unreadableObject;
        },
      });
      await agent.prompt("go");
      expect(agent.state.messages.find((message) => message.role === "toolResult")).toMatchObject({
        isError: true,
        content: [{ type: "text", text: "Threw an object whose text could not be read" }],
      });
      expect(agent.state.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
    }
  });

  it("a thrown list whose length is 2^32 - 1 is said in words at once (joined entry by entry, it blocked the process)", async () => {
    const list: unknown[] = ["first"];
    list.length = 2 ** 32 - 1;
    const { agent } = createAgentScenario([response(toolCall("work", {})), "done"], {
      tools: [
        testTool("work", {
          execute: async () => {
            throw list;
          },
        }),
      ],
    });
    await agent.prompt("go");
    expect(agent.state.messages.find((message) => message.role === "toolResult")).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "an array of 4294967295 entries" }],
    });
    // A short list is still written as pi writes it.
    expect(thrownText(["a", "b"])).toBe("a,b");
    expect(errorText(list)).toBe("an array of 4294967295 entries");
  }, 5_000);
});
