/**
 * Generated bad definitions: a sub-agent definition (`defineSubAgent`) or a
 * turn's `llm.fallback` list with one field set to a value of the wrong
 * type, out of range, or under a misspelt key, among valid neighbours; or
 * a tool list (a turn's or a sub-agent's) that holds two tools of one name.
 * Each must be refused where it is written (a sub-agent at
 * `defineSubAgent`, a fallback or tool list by `runTurn` before any event) with a
 * `TurnkitConfigError` whose message names the field; the same definition
 * without the fault must be accepted.
 */
import {
  PiTurnRunner,
  TurnkitConfigError,
  defineSubAgent,
  type LlmFallbackModel,
  type SubAgentDefinition,
} from "@turnkit/agent-core";
import { createRecordingTool, createScriptedModel } from "@turnkit/agent-core/testing";
import { errorText, valueText } from "@turnkit/agent-loop/internal";
import fc from "fast-check";
import { engineText } from "./invariants/no-engine-errors.js";

/**
 * One fault: where it is (`sub-agent`, `fallback`, or a tool list: a turn's
 * `turn-tools` or a sub-agent's `sub-agent-tools`), the path of the field
 * it breaks, and the value put there.
 */
export interface DefinitionFault {
  target: "sub-agent" | "fallback" | "turn-tools" | "sub-agent-tools";
  /** Field path under the target, e.g. `hooks.onHistoryChangedHook`, `models[1].headers.x-key`. */
  path: string;
  /** Text the refusal's message must contain (the field, or the misspelt key). */
  names: string;
  value: unknown;
  /** For `fallback`: how many valid models surround the faulty one (it is at index `position`); for a tool list, how many tools of their own names it holds, the copy of one put at `position`. */
  models: number;
  position: number;
}

/** A value whose `field` getter throws: a definition part no code can read. */
function unreadable(field: string): object {
  return Object.defineProperty({}, field, {
    get: () => {
      throw new Error(`${field} getter failed`);
    },
    enumerable: true,
  });
}

const SUB_AGENT_FAULTS: readonly { path: string; values: readonly unknown[]; names?: string }[] = [
  { path: "llm", values: [unreadable("model")], names: "could not be read" },
  { path: "systemPrompt", values: [5, null] },
  { path: "maxDepth", values: [0, 1.5, "2"] },
  { path: "workspaceDir", values: [5, {}] },
  { path: "hooks", values: [5, "hooks"] },
  { path: "hookTimeoutMs", values: [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "100"] },
  { path: "hooks.onHistoryChangedHook", values: ["log", 5, ["log"]] },
  { path: "hooks.beforeLLMCallHook", values: [() => {}], names: "unknown key 'beforeLLMCallHook'" },
  { path: "llm.maxTokens", values: [-1, 0, 2.5, "100"] },
  { path: "llm.cacheRetention", values: ["forever", 1] },
  { path: "llm.thinkingLevel", values: ["max", 3] },
  { path: "llm.firstEventTimeoutMs", values: [-5, "soon"] },
  { path: "llm.temprature", values: [1], names: "unknown key 'temprature'" },
  { path: "llmRetry", values: [5, "yes", true] },
  { path: "llmRetry.maxRetries", values: [-1, 1.5] },
  { path: "budget.maxSteps", values: [0, -2, 1.5] },
  { path: "budget.maxCost", values: [-1, "1"] },
  { path: "budget.maxStep", values: [3], names: "unknown key 'maxStep'" },
];

const FALLBACK_FAULTS: readonly { field: string; values: readonly unknown[]; names?: string }[] = [
  { field: "model", values: [undefined, {}, "gpt-x", { id: "m", api: "scripted" }] },
  { field: "apiKey", values: [5, {}] },
  { field: "streamFn", values: ["fetch", 5] },
  { field: "thinkingLevel", values: ["max", 1] },
  { field: "maxTokens", values: [0, -1, 2.5, "100"] },
  { field: "headers", values: [5, "x-key: 1", ["x"]] },
  { field: "headers.x-key", values: [5, null, { v: 1 }] },
  { field: "cacheRetention", values: ["forever", 0] },
  { field: "apikey", values: ["k"], names: "unknown key 'apikey'" },
];

/**
 * Stands for a revoked proxy among generated values (fast-check itself
 * cannot hold one: it looks into every value it generates); the check puts
 * a fresh revoked proxy in its place.
 */
const REVOKED_PROXY = Object.freeze({ revokedProxy: true });

/**
 * Values no field takes, tried at every path besides its own list: JSON
 * shows a NaN as `null` and cannot write a bigint, and a revoked proxy or a
 * symbol fails most ways of turning it into text. A refusal must still
 * name the field in its own words. (Not for a fault whose refusal names
 * something else than its path: a misspelt key, a part that cannot be read.)
 */
const HOSTILE_VALUES: readonly unknown[] = [Number.NaN, 7n, Symbol("odd"), REVOKED_PROXY];

/** The value a fault puts in place: a revoked proxy for {@link REVOKED_PROXY}, else the value itself. */
function placed(value: unknown): unknown {
  if (value !== REVOKED_PROXY) return value;
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

/** Faults of sub-agent definitions and fallback lists, one per case. */
export const definitionFaultArbitrary: fc.Arbitrary<DefinitionFault> = fc.oneof(
  fc.constantFrom(...SUB_AGENT_FAULTS).chain((fault) =>
    fc.constantFrom(...fault.values, ...(fault.names ? [] : HOSTILE_VALUES)).map(
      (value): DefinitionFault => ({
        target: "sub-agent",
        path: fault.path,
        names: fault.names ?? fault.path,
        value,
        models: 0,
        position: 0,
      }),
    ),
  ),
  fc.record({ models: fc.integer({ min: 1, max: 3 }), seed: fc.nat() }).chain(({ models, seed }) =>
    fc.constantFrom(...FALLBACK_FAULTS).chain((fault) =>
      fc.constantFrom(...fault.values, ...(fault.names ? [] : HOSTILE_VALUES)).map((value): DefinitionFault => {
        const position = seed % models;
        const path = `models[${position}].${fault.field}`;
        return { target: "fallback", path, names: fault.names ?? `llm.fallback.${path}`, value, models, position };
      }),
    ),
  ),
  // A second tool of a name already in the list, anywhere in it: refused naming the name.
  fc
    .record({
      target: fc.constantFrom("turn-tools" as const, "sub-agent-tools" as const),
      tools: fc.integer({ min: 1, max: 4 }),
      copied: fc.nat(),
      position: fc.nat(),
    })
    .map(({ target, tools, copied, position }): DefinitionFault => {
      const name = toolName(copied % tools);
      return {
        target,
        path: "tools",
        names: JSON.stringify(name),
        value: name,
        models: tools,
        position: position % (tools + 1),
      };
    }),
);

function toolName(index: number): string {
  return `tool_${index}`;
}

/** `fault.models` tools of their own names, with a second tool named `fault.value` put at `fault.position`. */
function toolsWithCopy(fault: DefinitionFault): ReturnType<typeof createRecordingTool>[] {
  const tools = Array.from({ length: fault.models }, (_, index) => createRecordingTool(toolName(index)));
  tools.splice(fault.position, 0, createRecordingTool(fault.value as string));
  return tools;
}

/** Sets `value` at the dotted `path` of `target` (objects on the way are copied). */
function withValue<T extends object>(target: T, path: string, value: unknown): T {
  const [head, ...rest] = path.split(".");
  const copy: Record<string, unknown> = { ...(target as Record<string, unknown>) };
  if (rest.length === 0) copy[head!] = placed(value);
  else {
    const inner = copy[head!];
    copy[head!] = withValue(typeof inner === "object" && inner !== null ? inner : {}, rest.join("."), value);
  }
  return copy as T;
}

function validSubAgent(): SubAgentDefinition {
  const model = createScriptedModel([]);
  return {
    name: "explore",
    description: "Explores",
    systemPrompt: "You explore.",
    llm: { model: model.model, streamFn: model.streamFn, maxTokens: 100 },
    tools: [createRecordingTool("grep")],
    hooks: { onHistoryChangedHook: () => {} },
    llmRetry: { maxRetries: 1 },
    budget: { maxSteps: 3 },
  };
}

function validFallbackModel(index: number): LlmFallbackModel {
  const model = createScriptedModel(["backup"], { model: { id: `backup-${index}`, provider: `backup-${index}` } });
  return { model: model.model, streamFn: model.streamFn, headers: { "x-key": "k" }, maxTokens: 100 };
}

/** Why a refusal is not the one expected, or `undefined`. */
function refusalProblem(error: unknown, fault: DefinitionFault): string | undefined {
  if (!TurnkitConfigError.isInstance(error)) return `not a TurnkitConfigError: ${errorText(error)}`;
  const engine = engineText(error.message);
  if (engine) return `the message carries the engine's text: ${engine}`;
  return error.message.includes(fault.names) ? undefined : `the message does not name ${fault.names}: ${error.message}`;
}

/**
 * Runs one fault and throws unless it was refused where it is written, as a
 * `TurnkitConfigError` naming the field (a fallback list before any event),
 * and the same definition without it was accepted.
 */
export async function checkDefinitionFault(fault: DefinitionFault): Promise<void> {
  const fail = (problem: string) => {
    throw new Error(`${fault.target} ${fault.path} = ${describe(fault.value)}: ${problem}`);
  };
  if (fault.target === "turn-tools") return checkTurnTools(fault, fail);
  if (fault.target === "sub-agent" || fault.target === "sub-agent-tools") {
    defineSubAgent(validSubAgent());
    try {
      defineSubAgent(
        fault.target === "sub-agent"
          ? withValue(validSubAgent(), fault.path, fault.value)
          : { ...validSubAgent(), tools: toolsWithCopy(fault) },
      );
    } catch (error) {
      const problem = refusalProblem(error, fault);
      if (problem) fail(problem);
      return;
    }
    return fail("accepted");
  }
  const models = Array.from({ length: fault.models }, (_, index) => validFallbackModel(index));
  const faulty = models.map((model, index) =>
    index === fault.position ? withValue(model, fault.path.slice(fault.path.indexOf(".") + 1), fault.value) : model,
  );
  const turn = createScriptedModel(["answer", "answer"]);
  const run = (fallbackModels: LlmFallbackModel[], events: unknown[]) =>
    new PiTurnRunner().runTurn({
      sessionId: "s",
      turnId: "t",
      systemPrompt: "",
      userMessage: { text: "hi" },
      llm: { model: turn.model, streamFn: turn.streamFn, fallback: { models: fallbackModels } },
      llmRetry: false,
      eventWriter: { push: (event) => void events.push(event) },
    });
  const outcome = await run(models, []);
  if (outcome.kind !== "completed") fail(`the valid list failed the turn: ${JSON.stringify(outcome)}`);
  const events: unknown[] = [];
  try {
    await run(faulty, events);
  } catch (error) {
    const problem = refusalProblem(error, fault);
    if (problem) fail(problem);
    if (events.length > 0) fail(`${events.length} events before the refusal`);
    return;
  }
  fail("accepted");
}

/** A turn whose tools hold two of one name is refused naming it, before any event and any request. */
async function checkTurnTools(fault: DefinitionFault, fail: (problem: string) => never): Promise<void> {
  const model = createScriptedModel(["answer"]);
  const events: unknown[] = [];
  try {
    await new PiTurnRunner().runTurn({
      sessionId: "s",
      turnId: "t",
      systemPrompt: "",
      userMessage: { text: "hi" },
      llm: { model: model.model, streamFn: model.streamFn },
      tools: toolsWithCopy(fault),
      eventWriter: { push: (event) => void events.push(event) },
    });
  } catch (error) {
    const problem = refusalProblem(error, fault);
    if (problem) fail(problem);
    if ((error as TurnkitConfigError).code !== "duplicate_tool")
      fail(`refused with code ${(error as TurnkitConfigError).code}`);
    if (events.length > 0 || model.requests.length > 0)
      fail(`${events.length} events and ${model.requests.length} requests before the refusal`);
    return;
  }
  fail("accepted");
}

function describe(value: unknown): string {
  return valueText(value);
}
