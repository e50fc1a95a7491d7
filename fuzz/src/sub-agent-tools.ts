/**
 * The sub-agents of a generated turn (`TurnScenario.subAgents`), as
 * `defineSubAgent` tools. Each one runs on a scripted model of its own, on
 * the turn's virtual clock, answering every call the way its spec says; a
 * script that runs out answers with plain text, so any number of calls
 * (parallel ones share the script) ends.
 */
import { type Clock, type RuntimeTool, defineSubAgent } from "@turnkit/agent-core";
import {
  type ScriptEntry,
  type VirtualClock,
  createRecordingTool,
  createScriptedModel,
  errorAfter,
  hang,
  response,
  toolCall,
} from "@turnkit/agent-core/testing";
import type { ChildBehaviour, SubAgentSpec } from "./scenario.js";
import { withFallbackAnswers } from "./scripted-entries.js";

/** Calls of one sub-agent a script answers before its fallback text (more than any scenario makes). */
const CALLS_PER_SCRIPT = 8;

/** The name of the sub-agent a `nested` child calls. */
const INNER_AGENT = "inner";

/** The child tool a child calls before it answers (`withTool`), or that hangs (`toolHang`). */
function childTool(name: string, hangs: boolean): RuntimeTool {
  return createRecordingTool(name, {
    executionMode: "parallel",
    answer: (_input, signal) =>
      hangs
        ? new Promise((_resolve, reject) =>
            signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }),
          )
        : { content: [{ type: "text", text: `${name} done` }] },
  });
}

/** One call's worth of a child's script. */
function childEntries(child: ChildBehaviour): ScriptEntry[] {
  switch (child.kind) {
    case "answer":
      return child.withTool
        ? [response(toolCall("probe", { value: "x" })), response("child answer", { eventDelayMs: child.eventDelayMs })]
        : [response("child answer", { eventDelayMs: child.eventDelayMs })];
    case "fail":
      return [
        errorAfter(child.afterEvents, "500 Internal Server Error", { response: response("partial child answer") }),
      ];
    case "hang":
      return [hang({ afterEvents: child.afterEvents, response: response("hung child answer") })];
    case "toolHang":
      return [response(toolCall("stuck", { value: "x" }))];
    case "overBudget":
      return [response(toolCall("probe", { value: "x" })), response("never sent")];
    case "nested":
      return [response(toolCall(INNER_AGENT, { task: "inner task" })), response("child answer after inner")];
    default: {
      const unknown: never = child;
      throw new Error(`Unknown child behaviour: ${JSON.stringify(unknown)}`);
    }
  }
}

function scriptedLlm(entries: ScriptEntry[], clock: Clock, watchdogs: boolean) {
  const model = createScriptedModel(Array.from({ length: CALLS_PER_SCRIPT }, () => entries).flat(), {
    clock: clock as VirtualClock,
  });
  return {
    model: model.model,
    streamFn: withFallbackAnswers(model),
    ...(!watchdogs && { firstEventTimeoutMs: 0, streamIdleTimeoutMs: 0 }),
  };
}

/** The `nested` child's own sub-agent, which answers, fails or hangs. */
function innerAgent(inner: "answer" | "fail" | "hang", clock: Clock, watchdogs: boolean): RuntimeTool {
  const behaviour: ChildBehaviour =
    inner === "answer"
      ? { kind: "answer", eventDelayMs: 0, withTool: false }
      : inner === "fail"
        ? { kind: "fail", afterEvents: 1 }
        : { kind: "hang", afterEvents: 1 };
  return defineSubAgent({
    name: INNER_AGENT,
    description: "The inner sub-agent of a nested child",
    systemPrompt: "inner",
    llm: scriptedLlm(childEntries(behaviour), clock, watchdogs),
    llmRetry: false,
  });
}

/** The turn's sub-agent tools, on `clock`; `watchdogs: false` turns the children's stream timeouts off, as the turn's. */
export function createSubAgentTools(specs: readonly SubAgentSpec[], clock: Clock, watchdogs: boolean): RuntimeTool[] {
  return specs.map((spec) =>
    defineSubAgent({
      name: spec.name,
      description: `Scenario sub-agent ${spec.name}`,
      systemPrompt: `You are ${spec.name}.`,
      llm: scriptedLlm(childEntries(spec.child), clock, watchdogs),
      llmRetry: false,
      executionMode: spec.executionMode,
      tools: [
        childTool("probe", false),
        childTool("stuck", true),
        ...(spec.child.kind === "nested" ? [innerAgent(spec.child.inner, clock, watchdogs)] : []),
      ],
      ...(spec.child.kind === "overBudget" && { budget: { maxSteps: 1 } }),
    }),
  );
}
