/**
 * The sub-agents of a generated turn (`TurnScenario.subAgents`), as
 * `defineSubAgent` tools. Each one runs on a scripted model of its own, on
 * the turn's virtual clock, answering every call the way its spec says; a
 * script that runs out answers with plain text, so any number of calls
 * (parallel ones share the script) ends.
 */
import { type Clock, type RuntimeTool, type SubAgentTool, defineSubAgent } from "@turnkit/agent-core";
import {
  type ScriptEntry,
  type VirtualClock,
  createRecordingTool,
  createScriptedModel,
  errorAfter,
  hang,
  response,
  text,
  thinking,
  toolCall,
  usageOf,
} from "@turnkit/agent-core/testing";
import { type QuestionProbe, askQuestions } from "./host-questions.js";
import type { ChildBehaviour, SubAgentSpec } from "./scenario.js";
import { withFallbackAnswers } from "./scripted-entries.js";

/** Calls of one sub-agent a script answers before its fallback text (more than any scenario makes). */
const CALLS_PER_SCRIPT = 8;

/** What a `textless` child writes before its tool call: never a call's answer. */
export const CHILD_PREAMBLE = "Let me look at that first.";

/** The name of the sub-agent a `nested` child calls. */
const INNER_AGENT = "inner";

/** What the children's tools need to ask the host as the turn's own tools do. */
export interface ChildQuestions {
  /** The turn's questions, where each ask is recorded for invariant 17. */
  probe: QuestionProbe;
  /** The id of the turn the children run under: a child's turn id is it, `/` and the call's id. */
  rootTurnId: string;
}

/**
 * The child tool a child calls before it answers (`withTool`), or that
 * hangs (`toolHang`). With `questions`, `probe` first asks the host one
 * question, as a tool of the turn would: the children of different
 * sub-agents number their calls alike (`call_1`, ...), so their questions
 * are told apart only by the sub-agent call they run under.
 */
function childTool(name: string, hangs: boolean, clock: Clock, questions: ChildQuestions | undefined): RuntimeTool {
  return createRecordingTool(name, {
    executionMode: "parallel",
    answer: async (_input, signal, ctx) => {
      if (hangs)
        return new Promise((_resolve, reject) =>
          signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }),
        );
      if (!questions || !ctx.askHost) return { content: [{ type: "text", text: `${name} done` }] };
      const scope = ctx.turnId.startsWith(`${questions.rootTurnId}/`)
        ? `${ctx.turnId.slice(questions.rootTurnId.length + 1)}/`
        : "";
      const text = await askQuestions(
        { callId: ctx.toolCallId, callKey: ctx.callKey ?? ctx.toolCallId },
        [{ timeoutMs: "default" }],
        ctx.askHost,
        clock,
        questions.probe,
        scope,
      );
      return { content: [{ type: "text", text }] };
    },
  });
}

/** One call's worth of a child's script; each response it completes reports `spends` (nothing when absent). */
function childEntries(child: ChildBehaviour, spends?: SubAgentSpec["spends"]): ScriptEntry[] {
  const usage = spends && { usage: usageOf(1, spends.output, spends.cost) };
  switch (child.kind) {
    case "answer":
      if (child.textless)
        return [
          response([text(CHILD_PREAMBLE), toolCall("probe", { value: "x" })], { ...usage }),
          response([thinking("nothing to add")], { eventDelayMs: child.eventDelayMs, ...usage }),
        ];
      return child.withTool
        ? [
            ...Array.from({ length: child.toolSteps ?? 1 }, () =>
              response(toolCall("probe", { value: "x" }), { ...usage }),
            ),
            response("child answer", { eventDelayMs: child.eventDelayMs, ...usage }),
          ]
        : [response("child answer", { eventDelayMs: child.eventDelayMs, ...usage })];
    case "fail":
      return [
        errorAfter(child.afterEvents, "500 Internal Server Error", { response: response("partial child answer") }),
      ];
    case "hang":
      return [hang({ afterEvents: child.afterEvents, response: response("hung child answer") })];
    case "toolHang":
      return [response(toolCall("stuck", { value: "x" }), { ...usage })];
    case "overBudget":
      return [response(toolCall("probe", { value: "x" }), { ...usage }), response("never sent", { ...usage })];
    case "hookHang":
      return [response(toolCall("probe", { value: "x" }), { ...usage }), response("child answer", { ...usage })];
    case "nested":
      return [
        response(toolCall(INNER_AGENT, { task: "inner task" }), { ...usage }),
        response("child answer after inner", { ...usage }),
      ];
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

/**
 * The turn's sub-agent tools, on `clock`; `watchdogs: false` turns the
 * children's stream timeouts off, as the turn's; with `questions` the
 * children's `probe` asks the host.
 */
export function createSubAgentTools(
  specs: readonly SubAgentSpec[],
  clock: Clock,
  watchdogs: boolean,
  questions?: ChildQuestions,
): RuntimeTool[] {
  return specs.map((spec) => {
    const budget = childBudget(spec);
    const tool = defineSubAgent({
      name: spec.name,
      description: `Scenario sub-agent ${spec.name}`,
      systemPrompt: `You are ${spec.name}.`,
      llm: scriptedLlm(childEntries(spec.child, spec.spends), clock, watchdogs),
      llmRetry: false,
      executionMode: spec.executionMode,
      tools: [
        childTool("probe", false, clock, questions),
        childTool("stuck", true, clock, questions),
        ...(spec.child.kind === "nested" ? [innerAgent(spec.child.inner, clock, watchdogs)] : []),
      ],
      ...(budget && { budget }),
      ...(spec.child.kind === "hookHang" && { hooks: { [spec.child.hook]: () => new Promise<never>(() => {}) } }),
    });
    const bad = spec.invalidCallBudget;
    if (!bad) return tool;
    // A host layer that runs each call with a definition of its own, whose budget has a bad field.
    return {
      ...tool,
      runCall: (_call, run) => run({ ...tool.subAgent, budget: { ...tool.subAgent.budget, [bad.field]: bad.value } }),
    } satisfies SubAgentTool;
  });
}

/** The budget of a sub-agent's definition: its spec's, with one step for an `overBudget` child. */
export function childBudget(spec: SubAgentSpec): SubAgentSpec["budget"] {
  if (spec.child.kind !== "overBudget") return spec.budget;
  return { ...spec.budget, maxSteps: 1 };
}
