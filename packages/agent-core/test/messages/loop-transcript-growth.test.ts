import { describe, expect, it } from "vitest";
import type { Message } from "@mariozechner/pi-ai";
import { Type } from "@sinclair/typebox";
import { Agent, type AgentMessage, type AgentTool } from "@turnkit/agent-loop";
import {
  createScriptedModel,
  errorAfter,
  hang,
  response,
  text,
  toolCall,
  userMessage,
  type ScriptEntry,
} from "@turnkit/agent-loop/testing";
import { projectAgentMessagesForModel } from "../../src/messages/project-messages.js";
import { TranscriptProjection } from "../../src/messages/transcript-projection.js";

/**
 * A runner turn whose host sees no message projects its requests with
 * `messagesMayChangeInPlace: false`, which trusts the loop's promise: an
 * array `convertToLlm` got has only grown since (every message seen then
 * is still in its place, also once a new run has its own array). These scenarios drive
 * every place the loop writes its transcript (prompts, steering and
 * follow-ups, streamed partials and the final response, tool results in
 * parallel and in order, failures that end a run) and fail if the promise
 * breaks, or if the trusting projection ever differs from a full one.
 */
interface Watch {
  agent: Agent;
  /** Requests whose array was the previous request's. */
  sameArray: number;
  requests: number;
}

function watchedAgent(
  script: ScriptEntry[],
  tools: AgentTool<any>[],
  toolExecution: "parallel" | "sequential" = "parallel",
): Watch {
  const scripted = createScriptedModel(script);
  const projection = new TranscriptProjection({ messagesMayChangeInPlace: false });
  let previous: { array: AgentMessage[]; seen: AgentMessage[] } | undefined;
  const watch: Watch = { agent: undefined as never, sameArray: 0, requests: 0 };
  const convertToLlm = (messages: AgentMessage[]): Message[] => {
    watch.requests++;
    if (previous) {
      // The array the last request saw, whether it is handed over again or a new run's array is.
      if (previous.array === messages) watch.sameArray++;
      expect(previous.array.length).toBeGreaterThanOrEqual(previous.seen.length);
      previous.seen.forEach((message, index) =>
        expect(previous!.array[index], `message ${index} changed between two requests`).toBe(message),
      );
    }
    previous = { array: messages, seen: [...messages] };
    const projected = projection.project(messages);
    expect(projected).toEqual(projectAgentMessagesForModel(messages));
    return projected;
  };
  watch.agent = new Agent({
    initialState: {
      model: scripted.model,
      systemPrompt: "test",
      tools,
      messages: [userMessage("earlier", { timestamp: 1 })],
    },
    streamFn: scripted.streamFn,
    convertToLlm,
    toolExecution,
  });
  return watch;
}

function tool(name: string, execute: () => Promise<string> | string): AgentTool<any> {
  return {
    name,
    label: name,
    description: name,
    parameters: Type.Object({}),
    execute: async () => ({ content: [text(await execute())], details: { name } }),
  };
}

const calls = (step: number, count: number, name = "work") =>
  response(Array.from({ length: count }, (_, index) => toolCall(name, {}, { id: `s${step}c${index}` })));

describe("the loop's transcript between two requests (what a runner turn's projection trusts)", () => {
  it("only grows through steps of parallel calls, steering and follow-ups", async () => {
    const watch = watchedAgent(
      [calls(1, 3), calls(2, 2), calls(3, 4), "answer", calls(4, 1), "done"],
      [tool("work", () => "ok")],
    );
    let steered = false;
    watch.agent.subscribe((event) => {
      if (event.type === "tool_execution_start" && !steered) {
        steered = true;
        watch.agent.steer(userMessage("steer"));
        watch.agent.followUp(userMessage("follow up"));
      }
    });
    await watch.agent.prompt("go");
    expect(watch.requests).toBe(6);
    expect(watch.sameArray).toBe(5);
  });

  it("only grows when tools run one by one and fail", async () => {
    let count = 0;
    const flaky = tool("work", () => {
      if (++count % 2 === 0) throw new Error("tool failed");
      return "ok";
    });
    const watch = watchedAgent([calls(1, 3), calls(2, 2), "answer"], [flaky], "sequential");
    await watch.agent.prompt("go");
    expect(watch.sameArray).toBe(2);
  });

  it("only grows when a response fails part way, when a run is aborted, and across runs", async () => {
    const watch = watchedAgent(
      [
        calls(1, 2),
        errorAfter(3, "overloaded", { response: "partial answer that breaks" }),
        "recovered",
        calls(2, 2),
        hang({ afterEvents: 2 }),
        calls(3, 1),
        "last",
      ],
      [tool("work", () => "ok")],
    );
    await watch.agent.prompt("go");
    await watch.agent.prompt("again");
    const running = watch.agent.prompt("and again");
    await new Promise((resolve) => setTimeout(resolve, 5));
    watch.agent.abort();
    await running;
    await watch.agent.prompt("after the abort");
    expect(watch.requests).toBe(7);
    expect(watch.sameArray).toBe(3);
  });
});
