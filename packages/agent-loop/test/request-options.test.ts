import { describe, expect, it } from "vitest";
import { Agent, type AgentLoopConfig } from "../src/index.js";
import { agentRunConfig } from "../src/agent-loop-config.js";
import { MessageQueue } from "../src/message-queue.js";
import { createScriptedModel, response } from "../src/testing/index.js";

function runConfigOf(agent: Agent): AgentLoopConfig {
  const queues = { steering: new MessageQueue("all"), followUp: new MessageQueue("all") };
  return agentRunConfig(agent, agent.state, queues, false);
}

describe("the options of an Agent's model requests", () => {
  // As in pi, `{ ...config, apiKey, signal }`: a smaller copy would hide fields a host's stream function may read.
  it("reach the stream function with every field of the run configuration, then apiKey and signal", async () => {
    const scripted = createScriptedModel([response("hi")]);
    let seen: Record<string, unknown> | undefined;
    const agent = new Agent({
      initialState: { model: scripted.model },
      getApiKey: () => "key",
      streamFn: (model, context, options) => {
        seen = options as Record<string, unknown>;
        return scripted.streamFn(model, context, options);
      },
    });
    await agent.prompt("go");
    expect(Object.keys(seen!)).toEqual([...Object.keys(runConfigOf(agent)), "apiKey", "signal"]);
    expect(seen!.apiKey).toBe("key");
    expect(seen!.signal).toBeInstanceOf(AbortSignal);
  });
});
