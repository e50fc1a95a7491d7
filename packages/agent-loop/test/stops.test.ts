import type { AssistantMessage, ToolResultMessage } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { type AgentMessage } from "../src/index.js";
import { ToolResultText } from "../src/internal.js";
import { errorAfter, requestText, response, text, toolCall } from "../src/testing/index.js";
import { firstText, runLoopScenario, testTool, textResult, user } from "./support/scenario.js";

function toolResultsOf(messages: readonly AgentMessage[]): ToolResultMessage[] {
  return messages.filter((message): message is ToolResultMessage => message.role === "toolResult");
}

/** Queue callbacks that count their polls and hand out prepared messages. */
function countingQueues(steering: AgentMessage[][] = [], followUps: AgentMessage[][] = []) {
  const polls = { steering: 0, followUp: 0 };
  return {
    polls,
    config: {
      getSteeringMessages: async () => {
        polls.steering += 1;
        return steering.shift() ?? [];
      },
      getFollowUpMessages: async () => {
        polls.followUp += 1;
        return followUps.shift() ?? [];
      },
    },
  };
}

describe("behaviour L3: error and aborted responses end the run at once", () => {
  for (const stopReason of ["error", "aborted"] as const) {
    it(`stopReason ${stopReason}: turn_end without results, agent_end; calls not executed; queues not polled`, async () => {
      let executed = 0;
      const tool = testTool("work", {
        execute: async () => {
          executed += 1;
          return textResult("ran");
        },
      });
      const queues = countingQueues([], [[user("follow-up that must wait")]]);
      const { trace, messages, scripted, events } = await runLoopScenario({
        script: [
          response([text("Let me"), toolCall("work", {}, { id: "c1" })], { stopReason, errorMessage: "upstream 500" }),
          "never",
        ],
        tools: [tool],
        config: queues.config,
      });
      expect(trace).toEqual([
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
        `message_end:assistant:${stopReason}`,
        "turn_end:0",
        "agent_end",
      ]);
      expect(executed).toBe(0);
      expect(scripted.requests).toHaveLength(1);
      // Only the poll at the start of the run happened.
      expect(queues.polls).toEqual({ steering: 1, followUp: 0 });
      const final = messages[1] as AssistantMessage;
      expect(final.stopReason).toBe(stopReason);
      expect(final.errorMessage).toBe("upstream 500");
      // Its partial tool call stays unanswered (L5: never replayed to a provider).
      expect(toolResultsOf(messages)).toHaveLength(0);
      const turnEnd = events.find((event) => event.type === "turn_end");
      expect(turnEnd?.type === "turn_end" && turnEnd.message).toBe(final);
    });
  }

  it("a stream error part way through keeps the streamed text and the error message", async () => {
    const { messages } = await runLoopScenario({
      script: [errorAfter(4, "connection reset", { response: "one two three four" })],
    });
    const final = messages[1] as AssistantMessage;
    expect(final).toMatchObject({ stopReason: "error", errorMessage: "connection reset" });
    expect(final.content).toEqual([{ type: "text", text: "one two" }]);
  });
});

describe("behaviour L11: a length-truncated response with tool calls", () => {
  it("answers each call with a truncation error without executing it, and ends the run", async () => {
    let executed = 0;
    const tool = testTool("write", {
      execute: async () => {
        executed += 1;
        return textResult("written");
      },
    });
    const queues = countingQueues([], [[user("follow")]]);
    const { trace, messages, scripted } = await runLoopScenario({
      script: [
        response([toolCall("write", { path: "a" }, { id: "c1" }), toolCall("write", { path: "b" }, { id: "c2" })], {
          stopReason: "length",
        }),
        "never",
      ],
      tools: [tool],
      config: queues.config,
    });
    expect(executed).toBe(0);
    expect(scripted.requests).toHaveLength(1);
    expect(trace).toEqual([
      "agent_start",
      "turn_start",
      "message_start:user",
      "message_end:user",
      "message_start:assistant",
      "message_end:assistant:length",
      "tool_execution_start:c1",
      "tool_execution_end:c1:error",
      "message_start:toolResult:c1:error",
      "message_end:toolResult:c1:error",
      "tool_execution_start:c2",
      "tool_execution_end:c2:error",
      "message_start:toolResult:c2:error",
      "message_end:toolResult:c2:error",
      "turn_end:2",
      "agent_end",
    ]);
    expect(toolResultsOf(messages).map(firstText)).toEqual([ToolResultText.truncated, ToolResultText.truncated]);
    expect(ToolResultText.truncated).toContain("token limit");
    expect(queues.polls).toEqual({ steering: 1, followUp: 0 });
  });

  it("a length-truncated answer without tool calls is a normal end", async () => {
    const { messages, scripted } = await runLoopScenario({
      script: [response("cut off mid", { stopReason: "length" })],
    });
    expect((messages[1] as AssistantMessage).stopReason).toBe("length");
    expect(scripted.requests).toHaveLength(1);
  });
});

describe("behaviour L6: stops", () => {
  it("(b) shouldStopAfterTurn true: ends after the step without polling the queues", async () => {
    const queues = countingQueues([[user("steer")]], [[user("follow")]]);
    const seen: { results: number; newMessages: number; last: string | undefined }[] = [];
    const { trace, scripted } = await runLoopScenario({
      script: [response(toolCall("work", {}, { id: "c1" })), "never"],
      tools: [testTool("work")],
      config: {
        ...queues.config,
        getSteeringMessages: async () => {
          queues.polls.steering += 1;
          return [];
        },
        shouldStopAfterTurn: ({ toolResults, newMessages, context }) => {
          seen.push({
            results: toolResults.length,
            newMessages: newMessages.length,
            last: context.messages.at(-1)?.role,
          });
          return true;
        },
      },
    });
    expect(scripted.requests).toHaveLength(1);
    expect(seen).toEqual([{ results: 1, newMessages: 3, last: "toolResult" }]);
    expect(trace.slice(-2)).toEqual(["turn_end:1", "agent_end"]);
    expect(queues.polls).toEqual({ steering: 1, followUp: 0 });
  });

  it("(b) shouldStopAfterTurn false: the run goes on", async () => {
    let asked = 0;
    const { scripted } = await runLoopScenario({
      script: [response(toolCall("work")), "done"],
      tools: [testTool("work")],
      config: { shouldStopAfterTurn: async () => (asked += 1) > 5 },
    });
    expect(asked).toBe(2);
    expect(scripted.requests).toHaveLength(2);
  });

  it("(c) shouldStopAfterSteering true: the steering is recorded, no request is made for it", async () => {
    const queues = countingQueues([[], [user("actually, stop here")]]);
    const asked: string[] = [];
    const { trace, messages, scripted } = await runLoopScenario({
      script: [response(toolCall("work", {}, { id: "c1" })), "never"],
      tools: [testTool("work")],
      config: {
        ...queues.config,
        shouldStopAfterSteering: ({ steeringMessages, message, newMessages }) => {
          asked.push(`${steeringMessages.map(firstText).join()}|${message.stopReason}|${newMessages.length}`);
          return true;
        },
      },
    });
    expect(asked).toEqual(["actually, stop here|toolUse|3"]);
    expect(scripted.requests).toHaveLength(1);
    expect(trace.slice(-4)).toEqual(["turn_end:1", "message_start:user", "message_end:user", "agent_end"]);
    expect(firstText(messages.at(-1))).toBe("actually, stop here");
    expect(queues.polls.followUp).toBe(0);
  });

  it("(c) shouldStopAfterSteering is not asked when the poll returned nothing, and false goes on", async () => {
    const queues = countingQueues([[], [user("more")]]);
    let asked = 0;
    const { scripted } = await runLoopScenario({
      script: [response(toolCall("work")), "answer to more"],
      tools: [testTool("work")],
      config: { ...queues.config, shouldStopAfterSteering: () => (asked += 1) > 5 },
    });
    expect(asked).toBe(1);
    expect(scripted.requests).toHaveLength(2);
    expect(requestText(scripted.requests[1]!)).toBe("go\nwork done\nmore");
  });

  it("(d) every result terminates: no request for the results", async () => {
    const stop = testTool("finish", { execute: async () => textResult("finished", { terminate: true }) });
    const { scripted, trace } = await runLoopScenario({
      script: [response([toolCall("finish", {}, { id: "a" }), toolCall("finish", {}, { id: "b" })]), "never"],
      tools: [stop],
    });
    expect(scripted.requests).toHaveLength(1);
    expect(trace.slice(-2)).toEqual(["turn_end:2", "agent_end"]);
  });

  it("(d) a mixed batch (one result does not terminate) continues", async () => {
    const stop = testTool("finish", { execute: async () => textResult("finished", { terminate: true }) });
    const { scripted } = await runLoopScenario({
      script: [response([toolCall("finish"), toolCall("work")]), "done"],
      tools: [stop, testTool("work")],
    });
    expect(scripted.requests).toHaveLength(2);
  });

  it("(d) queued steering and follow-ups still run after a terminating batch", async () => {
    const stop = testTool("finish", { execute: async () => textResult("finished", { terminate: true }) });
    const queues = countingQueues([[], [user("steered")]], [[user("followed")]]);
    const { scripted } = await runLoopScenario({
      script: [response(toolCall("finish")), "answer to steering", "answer to follow-up"],
      tools: [stop],
      config: queues.config,
    });
    expect(scripted.requests).toHaveLength(3);
    expect(requestText(scripted.requests[1]!)).toBe("go\nfinished\nsteered");
    expect(requestText(scripted.requests[2]!)).toBe("go\nfinished\nsteered\nfollowed");
  });

  it("(d) afterToolCall can set terminate on every result", async () => {
    const { scripted } = await runLoopScenario({
      script: [response([toolCall("work"), toolCall("work")]), "never"],
      tools: [testTool("work")],
      config: { afterToolCall: async () => ({ terminate: true }) },
    });
    expect(scripted.requests).toHaveLength(1);
  });

  it("(e) nothing to continue: natural end after polling steering, then follow-ups", async () => {
    const queues = countingQueues();
    const { scripted } = await runLoopScenario({ script: ["done"], config: queues.config });
    expect(scripted.requests).toHaveLength(1);
    expect(queues.polls).toEqual({ steering: 2, followUp: 1 });
  });
});

describe("behaviours L6d, L7: terminateAgent from a hook", () => {
  it("beforeToolCall terminateAgent (parallel): every call runs, no request follows", async () => {
    let executed = 0;
    const tool = testTool("work", {
      execute: async () => {
        executed += 1;
        return textResult("ran");
      },
    });
    const { scripted, messages } = await runLoopScenario({
      script: [response([toolCall("work", {}, { id: "a" }), toolCall("work", {}, { id: "b" })]), "never"],
      tools: [tool],
      config: { beforeToolCall: async ({ toolCall }) => (toolCall.id === "a" ? { terminateAgent: true } : undefined) },
    });
    expect(executed).toBe(2);
    expect(scripted.requests).toHaveLength(1);
    expect(toolResultsOf(messages).map((result) => result.isError)).toEqual([false, false]);
  });

  it("afterToolCall terminateAgent (parallel): no request follows", async () => {
    const { scripted } = await runLoopScenario({
      script: [response([toolCall("work"), toolCall("work")]), "never"],
      tools: [testTool("work")],
      config: { afterToolCall: async () => ({ terminateAgent: true }) },
    });
    expect(scripted.requests).toHaveLength(1);
  });

  it("beforeToolCall terminateAgent (sequential): that call runs, the rest get a 'hook stopped' error result", async () => {
    const ran: string[] = [];
    const tool = testTool("work", {
      executionMode: "sequential",
      execute: async (id) => {
        ran.push(id);
        return textResult(`ran ${id}`);
      },
    });
    const { scripted, messages, trace } = await runLoopScenario({
      script: [
        response([
          toolCall("work", {}, { id: "a" }),
          toolCall("work", {}, { id: "b" }),
          toolCall("work", {}, { id: "c" }),
        ]),
        "never",
      ],
      tools: [tool],
      config: { beforeToolCall: async ({ toolCall }) => (toolCall.id === "a" ? { terminateAgent: true } : undefined) },
    });
    expect(ran).toEqual(["a"]);
    expect(scripted.requests).toHaveLength(1);
    expect(toolResultsOf(messages).map((result) => [result.toolCallId, result.isError, firstText(result)])).toEqual([
      ["a", false, "ran a"],
      ["b", true, ToolResultText.stoppedByHook],
      ["c", true, ToolResultText.stoppedByHook],
    ]);
    expect(ToolResultText.stoppedByHook).toContain("hook stopped");
    expect(trace).toContain("tool_execution_end:b:error");
  });

  it("afterToolCall terminateAgent (sequential): the remaining calls are not executed", async () => {
    const ran: string[] = [];
    const tool = testTool("work", {
      execute: async (id) => {
        ran.push(id);
        return textResult(`ran ${id}`);
      },
    });
    const { scripted, messages } = await runLoopScenario({
      script: [response([toolCall("work", {}, { id: "a" }), toolCall("work", {}, { id: "b" })]), "never"],
      tools: [tool],
      config: { toolExecution: "sequential", afterToolCall: async () => ({ terminateAgent: true }) },
    });
    expect(ran).toEqual(["a"]);
    expect(scripted.requests).toHaveLength(1);
    expect(toolResultsOf(messages).map((result) => [result.toolCallId, result.isError])).toEqual([
      ["a", false],
      ["b", true],
    ]);
    expect(firstText(toolResultsOf(messages)[1])).toBe(ToolResultText.stoppedByHook);
  });

  it("blocked and terminateAgent together: the call is answered with the block reason and the agent stops", async () => {
    const { scripted, messages } = await runLoopScenario({
      script: [response(toolCall("work", {}, { id: "a" })), "never"],
      tools: [testTool("work")],
      config: { beforeToolCall: async () => ({ block: true, reason: "Denied; stopping", terminateAgent: true }) },
    });
    expect(scripted.requests).toHaveLength(1);
    expect(firstText(toolResultsOf(messages)[0])).toBe("Denied; stopping");
  });
});
