/**
 * Generated `runTurn` inputs malformed the ways a JavaScript host makes
 * them: a field behind a getter that throws (at once, or only on a later
 * read), that answers something else on a later read, behind a proxy whose
 * `get` trap throws, or a revoked proxy; frozen objects; lists with a hole
 * or a length of 2^32 - 1; an own `__proto__` key; very long, non-BMP or
 * unpaired-surrogate strings in ids, texts and the system prompt; numbers
 * that are `NaN`, `-0`, `Infinity`, `1e308` or `2^31` in the options. One
 * to three faults per input, each at a field of a turn that otherwise
 * completes.
 *
 * Checked after each case: `runTurn` rejects only with a
 * `TurnkitConfigError`, before any event, naming a faulty field (or saying
 * what could not be read) in its own words; otherwise it resolves once,
 * the terminal status is the last event, `seq` counts 1, 2, 3, ..., every
 * event is valid, and nothing in the outcome or the events carries an
 * engine's text. An input whose faults change no value the turn reads once
 * (a later read, a frozen object, a valid string) completes as the faultless
 * input does. No prototype changes, no unhandled rejection.
 */
import { Type } from "@sinclair/typebox";
import { PiTurnRunner, TurnkitConfigError, defineRuntimeTool } from "@turnkit/agent-core";
import { createScriptedModel, response, toolCall } from "@turnkit/agent-core/testing";
import { errorText } from "@turnkit/agent-loop/internal";
import { type RuntimeEvent, validateRuntimeEvent } from "@turnkit/protocol";
import fc from "fast-check";
import { engineText } from "./invariants/no-engine-errors.js";
import { checkPrototypesUnchanged, snapshotPrototypes } from "./invariants/prototypes.js";
import { unhandledRejections } from "./unhandled-rejections.js";

/** What a fault does to the field it is put at. */
export type InputFaultKind =
  | "getterThrows"
  | "getterThrowsLater"
  | "getterJunkLater"
  | "trapThrows"
  | "revoked"
  | "frozen"
  | "hole"
  | "hugeHoles"
  | "protoKey"
  | "longString"
  | "loneSurrogate"
  | "nonBmp"
  | "blank"
  | "number";

/** One fault at `path` of the input (dotted, from its root); `number` is the value a `number` fault puts there, `text` the one a `blank` fault does. */
export interface InputFault {
  path: string;
  kind: InputFaultKind;
  number?: number;
  text?: string;
}

/** Faults that leave every value the turn reads once as it was: the turn completes as without them. */
const HARMLESS: ReadonlySet<InputFaultKind> = new Set([
  "getterThrowsLater",
  "getterJunkLater",
  "frozen",
  "longString",
  "loneSurrogate",
  "nonBmp",
]);

const STRING_FIELDS = ["sessionId", "turnId", "systemPrompt", "userMessage.text"];
const NUMBER_FIELDS = [
  "hookTimeoutMs",
  "llm.maxTokens",
  "llm.firstEventTimeoutMs",
  "llm.streamIdleTimeoutMs",
  "llmRetry.maxRetries",
  "llmRetry.baseDelayMs",
  "budget.maxSteps",
  "budget.maxCost",
];
const OBJECT_FIELDS = ["", "llm", "hooks", "userMessage", "llmRetry", "budget", "eventWriter"];
const LIST_FIELDS = [
  "tools",
  "history",
  "warnings",
  "userMessage.images",
  "hooks.onHistoryChangedHook",
  "hooks.onStepEndHook",
];
const ANY_FIELDS = [
  ...STRING_FIELDS,
  ...NUMBER_FIELDS,
  ...OBJECT_FIELDS.filter((path) => path !== ""),
  ...LIST_FIELDS,
  "llm.streamFn",
  "llm.model",
  "hooks.beforeLlmCallHook",
  "disableBuiltinToolFallback",
  "getSteeringMessages",
  "eventWriter.push",
  "tools.0",
  "tools.0.def",
  "tools.0.def.name",
  "tools.0.impl",
  "tools.0.impl.execute",
];

const faultArbitrary: fc.Arbitrary<InputFault> = fc.oneof(
  fc.record({
    path: fc.constantFrom(...ANY_FIELDS),
    kind: fc.constantFrom<InputFaultKind>("getterThrows", "getterThrowsLater", "getterJunkLater", "trapThrows"),
  }),
  fc.record({ path: fc.constantFrom(...ANY_FIELDS), kind: fc.constant<InputFaultKind>("revoked") }),
  fc.record({ path: fc.constantFrom(...OBJECT_FIELDS), kind: fc.constantFrom<InputFaultKind>("frozen", "protoKey") }),
  fc.record({ path: fc.constantFrom(...LIST_FIELDS), kind: fc.constantFrom<InputFaultKind>("hole", "hugeHoles") }),
  fc.record({
    path: fc.constantFrom(...STRING_FIELDS),
    kind: fc.constantFrom<InputFaultKind>("longString", "loneSurrogate", "nonBmp"),
  }),
  // A user message that says nothing: the model would be sent nothing new, so the turn must be refused.
  fc.record({
    path: fc.constant("userMessage.text"),
    kind: fc.constant<InputFaultKind>("blank"),
    text: fc.constantFrom("", " ", "\n\t  "),
  }),
  fc.record({
    path: fc.constantFrom(...NUMBER_FIELDS),
    kind: fc.constant<InputFaultKind>("number"),
    number: fc.constantFrom(Number.NaN, -0, Number.POSITIVE_INFINITY, 1e308, 2 ** 31, 0.5, -1),
  }),
);

/** One to three faults, at different fields. */
export const inputFaultsArbitrary: fc.Arbitrary<InputFault[]> = fc.uniqueArray(faultArbitrary, {
  minLength: 1,
  maxLength: 3,
  selector: (fault) => fault.path,
});

/** A turn that completes: one tool call, then an answer; a history hook, a step-end hook and a before-LLM hook. */
function faultlessInput(events: RuntimeEvent[]): Record<string, any> {
  const model = createScriptedModel([response([toolCall("lookup", {})]), "the answer"]);
  const tool = defineRuntimeTool({
    name: "lookup",
    description: "Looks something up",
    parameters: Type.Object({}),
    executionMode: "parallel",
    execute: () => ({ content: [{ type: "text", text: "found" }] }),
  });
  return {
    sessionId: "session-input",
    turnId: "turn-input",
    systemPrompt: "You answer.",
    userMessage: { text: "a question", images: [] },
    llm: { model: model.model, streamFn: model.streamFn, maxTokens: 1_000, firstEventTimeoutMs: 60_000 },
    tools: [tool],
    disableBuiltinToolFallback: true,
    history: [{ role: "user", content: "an earlier question", timestamp: 1 }],
    warnings: [],
    hooks: { onHistoryChangedHook: [() => {}], onStepEndHook: [() => {}], beforeLlmCallHook: () => undefined },
    llmRetry: { maxRetries: 1, baseDelayMs: 10 },
    budget: { maxSteps: 5, maxCost: 10 },
    hookTimeoutMs: 60_000,
    getSteeringMessages: () => [],
    eventWriter: { push: (event: RuntimeEvent) => void events.push(event) },
  };
}

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

/** Puts `fault` into `input` (its holders are plain objects or lists made above). */
function applyFault(input: Record<string, any>, fault: InputFault): Record<string, any> {
  const keys = fault.path === "" ? [] : fault.path.split(".");
  if (keys.length === 0) return fault.kind === "frozen" ? Object.freeze(input) : withProtoKey(input);
  const holder = keys.slice(0, -1).reduce((object, key) => object[key], input);
  const key = keys.at(-1)!;
  const value = holder[key];
  let reads = 0;
  const define = (get: () => unknown) => Object.defineProperty(holder, key, { get, enumerable: true });
  switch (fault.kind) {
    case "getterThrows":
      define(() => {
        throw new Error(`the getter of ${fault.path} failed`);
      });
      break;
    case "getterThrowsLater":
      define(() => {
        if (++reads > 1) throw new Error(`a later read of ${fault.path} failed`);
        return value;
      });
      break;
    case "getterJunkLater":
      define(() => (++reads > 1 ? 5 : value));
      break;
    case "trapThrows":
      holder[key] = new Proxy(typeof value === "object" && value !== null ? value : { value }, {
        get: () => {
          throw new Error(`the proxy at ${fault.path} failed`);
        },
      });
      break;
    case "revoked":
      holder[key] = revokedProxy();
      break;
    case "frozen":
      holder[key] = Object.freeze(value);
      break;
    case "protoKey":
      holder[key] = withProtoKey(value);
      break;
    case "hole":
      holder[key] = [, ...(value as unknown[])];
      break;
    case "hugeHoles": {
      const list: unknown[] = [];
      list.length = 2 ** 32 - 1;
      holder[key] = list;
      break;
    }
    case "longString":
      holder[key] = `${value}${"x".repeat(200_000)}`;
      break;
    case "loneSurrogate":
      holder[key] = `${value}\uD800 and \uDFFF`;
      break;
    case "nonBmp":
      holder[key] = `${value} 😀𝌆`;
      break;
    case "number":
      holder[key] = fault.number;
      break;
    case "blank":
      holder[key] = fault.text;
      break;
  }
  return input;
}

/** `value` with an own `__proto__` key, as `JSON.parse` makes it. */
function withProtoKey(value: Record<string, unknown>): Record<string, unknown> {
  // Descriptors, not values: a getter another fault put there stays a getter.
  return Object.defineProperties(
    JSON.parse('{"__proto__": {"polluted": true}}'),
    Object.getOwnPropertyDescriptors(value),
  );
}

/** Whether a refusal names a faulty field: a key of its path (`RunTurnInput` for the root), or `__proto__`. */
function namesFault(message: string, faults: readonly InputFault[]): boolean {
  return faults.some((fault) => {
    if (fault.kind === "protoKey") return message.includes("__proto__");
    if (fault.path === "") return message.includes("RunTurnInput");
    return fault.path.split(".").some((key) => !/^\d+$/.test(key) && message.includes(key));
  });
}

/**
 * A fault that changes no value the turn reads once. A tool is read again
 * when the tool table is built (a getter that throws then is refused
 * there), so no fault under `tools` counts.
 */
function isHarmless(fault: InputFault): boolean {
  return HARMLESS.has(fault.kind) && !fault.path.startsWith("tools.");
}

/** Runs `faults` on the faultless turn and throws unless the turn kept the promises above. */
export async function checkInputFaults(faults: readonly InputFault[]): Promise<void> {
  const before = snapshotPrototypes();
  const rejections = unhandledRejections();
  const rejectedBefore = rejections.seen.length;
  const events: RuntimeEvent[] = [];
  let input = faultlessInput(events);
  // Deeper fields first (a fault may replace a field's holder), frozen objects last (their fields can no longer be faulted).
  const depth = (fault: InputFault) => (fault.path === "" ? 0 : fault.path.split(".").length);
  const ordered = [...faults].sort(
    (a, b) => Number(a.kind === "frozen") - Number(b.kind === "frozen") || depth(b) - depth(a),
  );
  for (const fault of ordered) input = applyFault(input, fault);
  const fail = (problem: string): never => {
    throw new Error(`${JSON.stringify(faults)}: ${problem}`);
  };
  let outcome: { kind: string; message?: string } | undefined;
  try {
    outcome = await new PiTurnRunner().runTurn(input as never);
  } catch (error) {
    if (!TurnkitConfigError.isInstance(error)) fail(`runTurn rejected with no TurnkitConfigError: ${errorText(error)}`);
    const message = (error as Error).message;
    if (events.length > 0) fail(`refused after ${events.length} events: ${message}`);
    const engine = engineText(message);
    if (engine) fail(`the refusal carries the engine's text: ${engine}`);
    if (!namesFault(message, faults) && !message.includes("could not be read"))
      fail(`the refusal names no faulty field: ${message}`);
    if (faults.every(isHarmless)) fail(`a harmless input was refused: ${message}`);
  }
  if (outcome) {
    const last = events.at(-1);
    const terminals = events.filter((event) => event.type === "session.status" && event.payload.status !== "running");
    if (terminals.length !== 1 || last !== terminals[0]) fail("the terminal status is not the one last event");
    events.forEach((event, index) => {
      if (event.seq !== index + 1) fail(`event ${index} has seq ${event.seq}`);
      const checked = validateRuntimeEvent(event);
      if (!checked.ok) fail(`event ${index} (${event.type}) is invalid: ${checked.errors.slice(0, 2).join("; ")}`);
    });
    if (faults.some((fault) => fault.kind === "blank")) fail("a user message that says nothing was sent");
    const engine = engineText({ outcome, events });
    if (engine) fail(`the turn carries the engine's text: ${engine}`);
    if (faults.every(isHarmless) && outcome.kind !== "completed")
      fail(`a harmless input did not complete: ${JSON.stringify(outcome)}`);
  }
  await new Promise((resolve) => setImmediate(resolve));
  checkPrototypesUnchanged(before);
  const rejected = rejections.seen.slice(rejectedBefore);
  if (rejected.length > 0) fail(`unhandled rejections: ${rejected.map(errorText).join("; ")}`);
}
