import { describe, expect, it } from "vitest";
import { requestText, response, toolCall } from "../src/testing/index.js";
import { traceOf } from "./support/event-grammar.js";
import { createAgentScenario, deferred, firstText, testTool, textResult, user } from "./support/scenario.js";

describe("behaviour L1: steering", () => {
  it("arrives after the whole batch and before the next request", async () => {
    const slowRelease = deferred();
    const steered = deferred();
    const slow = testTool("slow", {
      execute: async () => {
        await slowRelease.promise;
        return textResult("slow result");
      },
    });
    const fast = testTool("fast", {
      execute: async () => {
        steered.resolve();
        return textResult("fast result");
      },
    });
    const { agent, scripted, takeRun } = createAgentScenario(
      [response([toolCall("slow", {}, { id: "s" }), toolCall("fast", {}, { id: "f" })]), "answer with steering"],
      { tools: [slow, fast] },
    );
    const run = agent.prompt("go");
    await steered.promise;
    // Steered while one call of the batch still runs.
    agent.steer(user("change of plan"));
    slowRelease.resolve();
    await run;

    const trace = traceOf(takeRun());
    const turnEnd = trace.indexOf("turn_end:2");
    expect(trace.slice(turnEnd, turnEnd + 5)).toEqual([
      "turn_end:2",
      "turn_start",
      "message_start:user",
      "message_end:user",
      "message_start:assistant",
    ]);
    expect(scripted.requests).toHaveLength(2);
    expect(scripted.requests[1]!.context.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "user",
    ]);
    expect(requestText(scripted.requests[1]!)).toBe("go\nslow result\nfast result\nchange of plan");
  });

  it("queued before prompt() is injected right after the prompt, in the first request", async () => {
    const { agent, scripted } = createAgentScenario(["ok"]);
    agent.steer(user("queued earlier"));
    await agent.prompt("go");
    expect(requestText(scripted.requests[0]!)).toBe("go\nqueued earlier");
    expect(agent.hasQueuedMessages()).toBe(false);
  });

  it("one-at-a-time (default): each poll takes one steering message, each gets its own request", async () => {
    const { agent, scripted } = createAgentScenario([response(toolCall("work")), "after a", "after b"], {
      tools: [testTool("work")],
    });
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start") {
        agent.steer(user("a"));
        agent.steer(user("b"));
      }
    });
    await agent.prompt("go");
    expect(scripted.requests.map(requestText)).toEqual(["go", "go\nwork done\na", "go\nwork done\na\nb"]);
  });

  it("all: one poll takes every queued steering message into one request", async () => {
    const { agent, scripted } = createAgentScenario([response(toolCall("work")), "after a and b"], {
      tools: [testTool("work")],
      steeringMode: "all",
    });
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start") {
        agent.steer(user("a"));
        agent.steer(user("b"));
      }
    });
    await agent.prompt("go");
    expect(scripted.requests.map(requestText)).toEqual(["go", "go\nwork done\na\nb"]);
  });

  it("steerBatch injects its messages together, even in one-at-a-time mode", async () => {
    const { agent, scripted } = createAgentScenario([response(toolCall("work")), "after batch", "after c"], {
      tools: [testTool("work")],
    });
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start") {
        agent.steerBatch([user("a"), user("b")]);
        agent.steer(user("c"));
      }
    });
    await agent.prompt("go");
    expect(scripted.requests.map(requestText)).toEqual(["go", "go\nwork done\na\nb", "go\nwork done\na\nb\nc"]);
  });

  it("clearSteeringQueue() drops queued steering before it is polled", async () => {
    const { agent, scripted } = createAgentScenario([response(toolCall("work")), "answer"], {
      tools: [testTool("work")],
    });
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start") {
        agent.steer(user("dropped"));
        agent.followUp(user("kept"));
        agent.clearSteeringQueue();
      }
    });
    agent.followUp(user("x"));
    agent.clearFollowUpQueue();
    await agent.prompt("go");
    expect(scripted.requests.map(requestText).at(-1)).toBe("go\nwork done\nkept");
  });

  it("shouldStopAfterSteering: the steering is in the transcript, no request; continue() sends it later", async () => {
    const { agent, scripted, takeRun } = createAgentScenario([response(toolCall("work")), "answer to the steering"], {
      tools: [testTool("work")],
      shouldStopAfterSteering: ({ steeringMessages }) => firstText(steeringMessages[0]) === "stop and wait",
    });
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start") agent.steer(user("stop and wait"));
    });
    await agent.prompt("go");
    const trace = traceOf(takeRun());
    expect(trace.slice(-4)).toEqual(["turn_end:1", "message_start:user", "message_end:user", "agent_end"]);
    expect(scripted.requests).toHaveLength(1);
    expect(firstText(agent.state.messages.at(-1))).toBe("stop and wait");

    await agent.continue();
    expect(requestText(scripted.requests[1]!)).toBe("go\nwork done\nstop and wait");
  });
});

describe("behaviour L1: follow-ups", () => {
  it("run after a natural end, not before", async () => {
    const { agent, scripted, takeRun } = createAgentScenario(
      [response(toolCall("work")), "first answer", "answer to follow-up"],
      {
        tools: [testTool("work")],
      },
    );
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start") agent.followUp(user("and then?"));
    });
    await agent.prompt("go");
    expect(scripted.requests.map(requestText)).toEqual(["go", "go\nwork done", "go\nwork done\nand then?"]);
    const trace = traceOf(takeRun());
    // The follow-up starts a new step after the answer's turn_end.
    const lastTurnStart = trace.lastIndexOf("turn_start");
    expect(trace.slice(lastTurnStart - 1, lastTurnStart + 3)).toEqual([
      "turn_end:0",
      "turn_start",
      "message_start:user",
      "message_end:user",
    ]);
  });

  it("one-at-a-time: one follow-up per natural end; all: every queued follow-up at once", async () => {
    const oneAtATime = createAgentScenario(["first", "second", "third"]);
    oneAtATime.agent.followUp(user("f1"));
    oneAtATime.agent.followUp(user("f2"));
    await oneAtATime.agent.prompt("go");
    expect(oneAtATime.scripted.requests.map(requestText)).toEqual(["go", "go\nf1", "go\nf1\nf2"]);

    const all = createAgentScenario(["first", "second"], { followUpMode: "all" });
    all.agent.followUp(user("f1"));
    all.agent.followUp(user("f2"));
    await all.agent.prompt("go");
    expect(all.scripted.requests.map(requestText)).toEqual(["go", "go\nf1\nf2"]);
  });

  it("steering wins over follow-ups at the same point", async () => {
    const { agent, scripted } = createAgentScenario([response(toolCall("work")), "to steering", "to follow-up"], {
      tools: [testTool("work")],
    });
    agent.subscribe((event) => {
      if (event.type === "tool_execution_start") {
        agent.followUp(user("follow"));
        agent.steer(user("steer"));
      }
    });
    await agent.prompt("go");
    expect(scripted.requests.map(requestText)).toEqual(["go", "go\nwork done\nsteer", "go\nwork done\nsteer\nfollow"]);
  });

  it("modes can be changed between runs", async () => {
    const { agent, scripted } = createAgentScenario(["first", "both"]);
    agent.followUpMode = "all";
    expect(agent.followUpMode).toBe("all");
    agent.steeringMode = "all";
    expect(agent.steeringMode).toBe("all");
    agent.followUp(user("f1"));
    agent.followUp(user("f2"));
    await agent.prompt("go");
    expect(scripted.requests.map(requestText)).toEqual(["go", "go\nf1\nf2"]);
  });
});
