import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../src/index.js";
import { defaultConvertToLlm } from "../src/default-convert-to-llm.js";
import { requestText, response, toolCall } from "../src/testing/index.js";
import { createAgentScenario, testTool, user } from "./support/scenario.js";

const notice = { role: "notice", text: "UI only", timestamp: 1 } as unknown as AgentMessage;

describe("the default conversion of a run's transcript, request after request", () => {
  it("follows what hooks change in the context between requests: added, removed and replaced messages", async () => {
    let batches = 0;
    const { agent, scripted } = createAgentScenario(
      [
        response([toolCall("look", {}, { id: "a" })]),
        response([toolCall("look", {}, { id: "b" })]),
        response([toolCall("look", {}, { id: "c" })]),
        "done",
      ],
      {
        tools: [testTool("look")],
        beforeToolCall: async ({ context }) => {
          batches += 1;
          // First batch: the prompt, already sent once, is replaced; second: a custom message appears; third: it goes.
          if (batches === 1) context.messages[0] = user("replaced prompt");
          if (batches === 2) context.messages.push(notice);
          if (batches === 3) context.messages.splice(context.messages.indexOf(notice), 1);
          return undefined;
        },
      },
    );
    await agent.prompt("go");

    const roles = scripted.requests.map((request) => request.context.messages.map((message) => message.role).join(","));
    expect(roles).toEqual([
      "user",
      "user,assistant,toolResult",
      "user,assistant,toolResult,assistant,toolResult",
      "user,assistant,toolResult,assistant,toolResult,assistant,toolResult",
    ]);
    expect(requestText(scripted.requests[0]!)).toBe("go");
    expect(requestText(scripted.requests[1]!).split("\n")[0]).toBe("replaced prompt");
    expect(requestText(scripted.requests[2]!).split("\n")[0]).toBe("replaced prompt");
    expect(requestText(scripted.requests[3]!).split("\n")[0]).toBe("replaced prompt");
    // Each request got an array of its own.
    expect(new Set(scripted.requests.map((request) => request.context.messages)).size).toBe(4);
  });
});

describe("the default conversion", () => {
  it("keeps exactly the provider messages, in order, in a new array, with or without custom messages", () => {
    const providerOnly: AgentMessage[] = [user("a"), user("b")];
    const converted = defaultConvertToLlm(providerOnly);
    expect(converted).toEqual(providerOnly);
    expect(converted).not.toBe(providerOnly);
    const mixed: AgentMessage[] = [notice, user("a"), notice, user("b")];
    expect(defaultConvertToLlm(mixed)).toEqual([user("a"), user("b")]);
    expect(mixed).toHaveLength(4);
  });
});
