import type { AssistantMessage } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../src/index.js";
import { ABORTED_ERROR_MESSAGE, response, toolCall } from "../src/testing/index.js";
import { runLoopScenario, testTool } from "./support/scenario.js";

/**
 * Once the run's signal has fired, the loop starts no model request: neither
 * `transformContext` (where hosts run their before-request hooks) nor the
 * stream function is called, and the step ends with an `aborted` message.
 */

function lastAssistant(messages: readonly AgentMessage[]): AssistantMessage {
  return messages.filter((message): message is AssistantMessage => message.role === "assistant").at(-1)!;
}

describe("request-starts-after-abort", () => {
  it("an abort from the steering poll after a tool step: no transformContext, no request, the step ends aborted", async () => {
    const controller = new AbortController();
    let polls = 0;
    const transformed: boolean[] = [];
    const { messages, scripted, trace } = await runLoopScenario({
      script: [response(toolCall("work", {}, { id: "w" })), "never requested"],
      tools: [testTool("work")],
      signal: controller.signal,
      config: {
        getSteeringMessages: async () => {
          polls += 1;
          if (polls === 2) controller.abort();
          return [];
        },
        transformContext: async (context, signal) => {
          transformed.push(signal?.aborted === true);
          return context;
        },
      },
    });
    expect(polls).toBe(2);
    expect(transformed).toEqual([false]);
    expect(scripted.requests).toHaveLength(1);
    expect(lastAssistant(messages)).toMatchObject({
      stopReason: "aborted",
      errorMessage: ABORTED_ERROR_MESSAGE,
      content: [],
    });
    expect(trace.slice(-6)).toEqual([
      "turn_end:1",
      "turn_start",
      "message_start:assistant",
      "message_end:assistant:aborted",
      "turn_end:0",
      "agent_end",
    ]);
  });

  it("a transformContext pending at the abort that answers afterwards: the stream function is not called", async () => {
    const controller = new AbortController();
    const { messages, scripted } = await runLoopScenario({
      script: ["never requested"],
      signal: controller.signal,
      config: {
        // Ignores the signal, as a slow before-request hook may.
        transformContext: async (context) => {
          setTimeout(() => controller.abort(), 1);
          await new Promise((resolve) => setTimeout(resolve, 10));
          return context;
        },
      },
    });
    expect(scripted.requests).toHaveLength(0);
    expect(lastAssistant(messages)).toMatchObject({ stopReason: "aborted", errorMessage: ABORTED_ERROR_MESSAGE });
  });

  it("an abort while the API key is looked up: the stream function is not called", async () => {
    const controller = new AbortController();
    const { messages, scripted } = await runLoopScenario({
      script: ["never requested"],
      signal: controller.signal,
      config: {
        getApiKey: async () => {
          controller.abort();
          return "key";
        },
      },
    });
    expect(scripted.requests).toHaveLength(0);
    expect(lastAssistant(messages).stopReason).toBe("aborted");
  });
});
