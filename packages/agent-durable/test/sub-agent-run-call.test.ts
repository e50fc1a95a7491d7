/*
 * A host `runCall` on a sub-agent tool in a durable turn: the definition it
 * hands to `run` is the one the child turn runs with, its seams durable (a
 * replay from the records sends no request of the child again), for a
 * sequential and a parallel sub-agent. Before, the durable layer replaced
 * the host's `runCall` with its own and the child ran the original
 * definition, silently.
 */
import { defineSubAgent, type SubAgentDefinition } from "@turnkit/agent-core";
import { createScriptedModel, response, toolCall } from "@turnkit/agent-core/testing";
import type { StreamFn } from "@turnkit/agent-loop";
import { describe, expect, it } from "vitest";
import type { BuildDurableTurn } from "../src/index.js";
import { useInProcessWorker } from "./support/in-process-worker.js";
import { finalText } from "./support/log-assertions.js";

/** Model requests of the children, by the text their model answered. */
const childRequests = new Map<string, number>();
/** Calls of the host's `runCall`, by tool call id. */
const runCalls = new Map<string, number>();

function answering(text: string): StreamFn {
  return (model, context, options) => {
    childRequests.set(text, (childRequests.get(text) ?? 0) + 1);
    return createScriptedModel([response(text)]).streamFn(model, context, options);
  };
}

function helper(executionMode: "sequential" | "parallel") {
  const definition: SubAgentDefinition = {
    name: `${executionMode}_helper`,
    description: "Helps",
    systemPrompt: "You help.",
    llm: { model: createScriptedModel([]).model, streamFn: answering(`original ${executionMode}`) },
    llmRetry: false,
    executionMode,
  };
  return {
    ...defineSubAgent(definition),
    // The host's per-call layer: this call's child answers through another model.
    runCall: (call: { toolCallId: string }, run: (given: SubAgentDefinition) => Promise<never>) => {
      runCalls.set(call.toolCallId, (runCalls.get(call.toolCallId) ?? 0) + 1);
      return run({
        ...definition,
        llm: { ...definition.llm, streamFn: answering(`via runCall ${executionMode} ${call.toolCallId}`) },
      });
    },
  };
}

const buildTurn: BuildDurableTurn = (request) => {
  const mode = request.metadata?.mode as "sequential" | "parallel";
  const streamFn: StreamFn = (model, context, options) => {
    const result = context.messages.findLast((m) => m.role === "toolResult");
    const entry = result
      ? response(`child said: ${result.content.map((b) => (b.type === "text" ? b.text : "")).join("")}`)
      : response([toolCall(`${mode}_helper`, { task: "help" }, { id: `${request.turnId}-call` })]);
    return createScriptedModel([entry]).streamFn(model, context, options);
  };
  return {
    systemPrompt: "You are a test assistant.",
    llm: { model: createScriptedModel([]).model, streamFn },
    llmRetry: false,
    tools: [helper("sequential"), helper("parallel")],
  };
};

const fixture = useInProcessWorker({ workerId: "in-test-run-call", concurrency: 2, buildTurn });

describe("a host runCall on a sub-agent tool of a durable turn", () => {
  for (const mode of ["sequential", "parallel"] as const) {
    it(`runs the ${mode} child with the definition it hands over, durably`, async () => {
      const turn = await fixture.worker.client.start({
        sessionId: `s-${mode}`,
        turnId: mode,
        userMessage: { text: "go" },
        metadata: { mode },
      });
      const outcome = await fixture.worker.client.outcome(turn);
      expect(outcome, JSON.stringify(outcome)).toMatchObject({ kind: "completed" });
      const answer = `via runCall ${mode} ${mode}-call`;
      const events = await fixture.worker.client.readEvents(turn);
      expect(finalText(events)).toBe(`child said: ${answer}`);
      expect(childRequests.get(`original ${mode}`)).toBeUndefined();
      expect(runCalls.get(`${mode}-call`)).toBe(1);
      // A replay from the records calls runCall again and sends none of the child's requests again.
      await fixture.replay(turn);
      expect(runCalls.get(`${mode}-call`)).toBe(2);
      expect(childRequests.get(answer)).toBe(1);
      expect(await fixture.worker.client.readEvents(turn)).toEqual(events);
    });
  }
});
