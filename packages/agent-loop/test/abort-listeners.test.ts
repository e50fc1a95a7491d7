import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentTool } from "../src/index.js";
import { runAgentLoop } from "../src/index.js";
import { settleOrAbandon } from "../src/internal.js";
import {
  abortListenerCount,
  createScriptedModel,
  hang,
  probeRealTimers,
  response,
  toolCall,
} from "../src/testing/index.js";
import {
  createAgentScenario,
  deferred,
  flush,
  runLoopScenario,
  testTool,
  textResult,
  user,
} from "./support/scenario.js";

let warnings: string[];
const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
beforeEach(() => {
  warnings = [];
  process.on("warning", onWarning);
});
afterEach(() => {
  process.off("warning", onWarning);
});

describe("abort listeners of a run on the caller's signal", () => {
  it("a few while it streams and while its tools run, not more with every step; none once it ended", async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const count = () => seen.push(abortListenerCount(controller.signal));
    const { trace } = await runLoopScenario({
      script: [response([toolCall("look"), toolCall("look")]), response([toolCall("look")]), "done"],
      tools: [
        testTool("look", {
          execute: async () => {
            count();
            return textResult("ok");
          },
        }),
      ],
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "message_update" || event.type === "tool_execution_start" || event.type === "turn_end")
          count();
      },
    });
    expect(trace.at(-1)).toBe("agent_end");
    expect(seen.length).toBeGreaterThan(6);
    // The run's requests follow its signal; a response being read, and a tool batch, wait within one abort grace.
    expect(Math.max(...seen)).toBeLessThanOrEqual(2);
    expect(abortListenerCount(controller.signal)).toBe(0);
  });

  it("an Agent's awaited listener result: aborted while it is pending, its grace timer and listener go once it settles", async () => {
    const { agent } = createAgentScenario(["done"]);
    const slow = deferred();
    const reached = deferred();
    const counts: number[] = [];
    agent.subscribe((event, signal) => {
      if (event.type !== "turn_end") return;
      reached.resolve();
      counts.push(abortListenerCount(signal));
      return slow.promise;
    });
    const timers = probeRealTimers();
    try {
      const run = agent.prompt("go");
      await reached.promise;
      const signal = agent.signal!;
      // One listener: the run's requests' abort and the pending result's grace share the signal's one listener.
      expect(counts).toEqual([1]);
      expect(abortListenerCount(signal)).toBe(1);
      agent.abort();
      slow.resolve();
      await run;
      expect(agent.state.isStreaming).toBe(false);
      expect(timers.pending()).toBe(0);
      expect(abortListenerCount(signal)).toBe(0);
    } finally {
      timers.restore();
    }
  });

  it("50 runs, scripted streams and grace waits sharing one signal: no process warning, each aborts, none left after", async () => {
    const controller = new AbortController();
    const { signal } = controller;
    const runs = Array.from({ length: 50 }, () => {
      const scripted = createScriptedModel([hang({ afterEvents: 1, response: "never ends" })]);
      return runAgentLoop(
        [user("go")],
        { systemPrompt: "", messages: [], tools: [] },
        { model: scripted.model, convertToLlm: (all) => all as never },
        () => {},
        signal,
        scripted.streamFn,
      );
    });
    // A host calling the scripted stream function itself with its signal, and waiting within a grace on it.
    const streams = await Promise.all(
      Array.from({ length: 50 }, () => {
        const scripted = createScriptedModel([hang()]);
        return scripted.streamFn(scripted.model, { messages: [] }, { signal });
      }),
    );
    const waits = Array.from({ length: 50 }, () => settleOrAbandon(new Promise(() => {}), signal, 1));
    await flush();
    expect(abortListenerCount(signal)).toBe(1);

    controller.abort();
    const ended = await Promise.all(runs);
    expect(ended.map((messages) => (messages.at(-1) as { stopReason?: string }).stopReason)).toEqual(
      Array(50).fill("aborted"),
    );
    const results = await Promise.all(streams.map((stream) => stream.result()));
    expect(results.map((message) => message.stopReason)).toEqual(Array(50).fill("aborted"));
    expect(new Set(await Promise.all(waits)).size).toBe(1);
    await flush();
    expect(warnings).toEqual([]);
    expect(abortListenerCount(signal)).toBe(0);
  });

  it("50 runs that complete on one signal: no warning, and its listener leaves with the last of them", async () => {
    const { signal } = new AbortController();
    const runs = Array.from({ length: 50 }, () => {
      const scripted = createScriptedModel(["done"]);
      return runAgentLoop(
        [user("go")],
        { systemPrompt: "", messages: [], tools: [] },
        { model: scripted.model, convertToLlm: (all) => all as never },
        () => {},
        signal,
        scripted.streamFn,
      );
    });
    await Promise.all(runs);
    await flush();
    expect(warnings).toEqual([]);
    expect(abortListenerCount(signal)).toBe(0);
  });

  it("an Agent run's own signal: twelve parallel tool calls each listening on it (as fetch does) print no warning, and all abort", async () => {
    const started = deferred();
    let listening = 0;
    const wait: AgentTool<any> = testTool("wait", {
      executionMode: "parallel",
      execute: (_id, _args, signal) =>
        new Promise((resolve) => {
          signal?.addEventListener("abort", () => resolve(textResult("stopped")), { once: true });
          if (++listening === 12) started.resolve();
        }),
    });
    const calls = Array.from({ length: 12 }, (_, index) => toolCall("wait", {}, { id: `c${index}` }));
    const { agent } = createAgentScenario([response(calls), "done"], { tools: [wait] });
    const run = agent.prompt("go");
    await started.promise;
    await flush();
    expect(warnings).toEqual([]);
    agent.abort();
    await run;
    const results = agent.state.messages.filter((message) => message.role === "toolResult");
    expect(results).toHaveLength(12);
  });
});
