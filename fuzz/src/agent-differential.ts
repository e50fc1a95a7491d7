/**
 * Invariant 19: on the ground the two loops share, Turnkit's `Agent` does
 * what pi-agent-core 0.73.1's does. A generated `Agent` scenario runs on
 * both; their model requests (context, option keys and values), events
 * (as the first listener saw them; a streaming update by the kind of stream
 * event it announces) with the
 * agent's state at each, transcripts and rejections must be the same.
 *
 * The shared ground is the `agent` property's scenarios with what differs
 * on purpose mapped away (each is a documented difference in
 * `conformance/src/documented-differences.ts`, or a Turnkit-only feature):
 * aborts, failing listeners and `continue()` while queued; stream functions
 * that throw or reject, streams that hang or end without `done`, and
 * `length` stops; a throwing `transformContext` and the hooks pi's `Agent`
 * does not take (`shouldStopAfterTurn`, `shouldStopAfterSteering`,
 * `onToolExecutionStart`, `terminateAgent`, `steerBatch`); arguments that
 * need coercing or fail validation (TypeBox schemas: pi-ai checks them
 * differently); and progress after a tool settled. Every call's delay is
 * on the virtual clock and differs from the other calls' of its batch:
 * which of two parallel calls ends first within one moment depends on how
 * many awaits each loop takes, which neither promises.
 */
import { Agent as PiAgent } from "@mariozechner/pi-agent-core";
import type { AgentEvent, AgentMessage } from "@turnkit/agent-loop";
import fc from "fast-check";
import { fauxSpecArbitrary } from "./faux-provider-turns.js";
import type { GenerationOptions } from "./known-bugs.js";
import { type AgentClass, type AgentScenarioObservation, runAgentScenario } from "./run-agent-scenario.js";
import { agentScenarioArbitrary } from "./scenario-arbitraries.js";
import { rareList } from "./response-arbitraries.js";
import type { AgentSettingsSpec, LaterRun, PromptForm } from "./agent-settings.js";
import type { AgentScenario, ResponseSpec, ToolBehaviour } from "./scenario.js";
import { InvariantViolation } from "./invariants/violation.js";

const INVARIANT = "19 the same run as pi's Agent";

/**
 * Virtual-clock delays per call of a response, by its index: primes above
 * the most updates a call makes, so no two calls of one batch end at the
 * same moment (a call with `n` updates waits `n` times its delay).
 */
const CALL_DELAYS_MS = [50, 70, 110, 130, 170, 190, 230, 290];

/** A behaviour both loops run alike: no hang, no progress after settling, and an end on the virtual clock of its own. */
function sharedBehaviour(behaviour: ToolBehaviour, index: number): ToolBehaviour {
  const delay = { kind: "clock" as const, ms: CALL_DELAYS_MS[index % CALL_DELAYS_MS.length]! };
  switch (behaviour.kind) {
    case "hang":
      return { kind: "result", delay, updates: 0, lateUpdate: false, terminate: false, isError: false };
    case "throw":
      return { kind: "throw", delay };
    case "result":
      return { ...behaviour, lateUpdate: false, malformed: undefined, oddUpdate: undefined, delay };
    case "ask":
      return behaviour;
  }
}

const SHARED_ENDINGS = new Set(["normal", "errorAfter", "eventsAfterDone", "withoutStart"]);

function sharedResponse(response: ResponseSpec): ResponseSpec {
  return {
    ...response,
    // A reason that does not match the calls is shared ground; `length` with calls (executed by pi) is a documented difference.
    stopReason: response.stopReason === "stop" || response.stopReason === "toolUse" ? response.stopReason : "natural",
    ending: SHARED_ENDINGS.has(response.ending.kind) ? response.ending : { kind: "normal" },
    calls: response.calls.map((call, index) => ({
      ...call,
      args: call.args.kind === "valid" ? call.args : { kind: "valid", value: "a" },
      behaviour: sharedBehaviour(call.behaviour, index),
    })),
  };
}

/** Agent settings that reach the requests' options, or none. */
const settingsArbitrary: fc.Arbitrary<AgentSettingsSpec | undefined> = fc.option(
  fc.record({
    thinkingLevel: fc.constantFrom("off", "minimal", "low", "medium", "high"),
    sessionId: fc.option(fc.constantFrom("session-1", "s"), { nil: undefined }),
    transport: fc.constantFrom("sse", "websocket", "auto", undefined),
    maxRetryDelayMs: fc.option(fc.constantFrom(0, 1_000, 60_000), { nil: undefined }),
    thinkingBudgets: fc.option(fc.record({ low: fc.constant(1_024), high: fc.constant(8_192) }, { requiredKeys: [] }), {
      nil: undefined,
    }),
    apiKeyAnswer: fc.constantFrom(undefined, "", "key-from-host"),
    convertToLlm: fc.constantFrom("default" as const, "rewrite" as const),
    providerCallbacks: fc.boolean(),
  }),
  { nil: undefined },
);

const promptFormArbitrary: fc.Arbitrary<PromptForm> = fc.constantFrom("message", "text", "textWithImages", "messages");

const laterRunArbitrary: fc.Arbitrary<LaterRun | undefined> = fc.constantFrom(
  undefined,
  "prompt",
  "continue",
  "resetAndPrompt",
);

/** Which responses (by index) stream an event of a type pi-ai does not have: rarely any. */
const oddResponses = rareList(fc.nat({ max: 3 }), 2);

/** The `agent` property's scenarios, on the ground both loops share (see the module). */
export function differentialAgentArbitrary(options: GenerationOptions): fc.Arbitrary<AgentScenario> {
  return fc
    .tuple(
      agentScenarioArbitrary(options),
      settingsArbitrary,
      promptFormArbitrary,
      laterRunArbitrary,
      oddResponses,
      // Now and then both agents send their requests through pi-ai's streamSimple to its faux provider.
      fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fauxSpecArbitrary(true) }),
    )
    .map(
      ([scenario, settings, promptForm, laterRun, odd, faux]): AgentScenario => ({
        settings,
        promptForm,
        laterRun,
        ...scenario,
        ...(faux && { faux }),
        // Both loops run on the same virtual timeline: unpaced, so their steps line up.
        pacing: undefined,
        requests: scenario.requests.map(sharedResponse),
        unknownEvents: scenario.requests
          .filter((response, index) => odd.includes(index) && response.text !== undefined)
          .map((response) => response.token),
        hooks: {
          beforeToolCall: scenario.hooks.beforeToolCall?.map((decision) =>
            decision === "block" || decision === "throw" ? decision : "allow",
          ),
          afterToolCall: scenario.hooks.afterToolCall?.map((decision) =>
            decision === "terminateAgent" || decision === "revoked" ? "none" : decision,
          ),
          onToolExecutionStart: undefined,
          shouldStopAfterTurn: undefined,
          shouldStopAfterSteering: undefined,
          transformContext: undefined,
        },
        // An abort once the run ended (in an agent_end listener) is shared ground: neither loop says it was aborted.
        actions: scenario.actions.filter(
          (action) =>
            action.kind === "steer" ||
            action.kind === "followUp" ||
            action.kind === "clear" ||
            (action.kind === "abort" && action.trigger.kind === "agentEnd"),
        ),
        listenerFailure: undefined,
        continueWhileQueued: false,
      }),
    );
}

/** A message in one line: role, stop reason, error flag, its blocks (text, call id, name and arguments), its error text. */
function messageLine(message: AgentMessage | undefined): string {
  if (!message) return "";
  const m = message as unknown as {
    role: string;
    stopReason?: string;
    isError?: boolean;
    errorMessage?: string;
    content?: unknown;
  };
  const blocks = typeof m.content === "string" ? [m.content] : ((m.content ?? []) as Record<string, unknown>[]);
  const content = blocks.map((block) => {
    if (typeof block === "string") return block;
    if (block.type === "text") return block.text;
    if (block.type === "toolCall") return `call ${block.id} ${block.name} ${JSON.stringify(block.arguments)}`;
    return block.type;
  });
  return `${m.role}/${m.stopReason ?? ""}${m.isError ? "!" : ""} ${JSON.stringify(content)} ${m.errorMessage ?? ""}`;
}

function eventLine(event: AgentEvent): string {
  const e = event as unknown as {
    type: string;
    message?: AgentMessage;
    toolCallId?: string;
    result?: { content?: unknown };
    isError?: boolean;
    toolResults?: unknown[];
  };
  const parts = [e.type, messageLine(e.message)];
  if (e.toolCallId) parts.push(e.toolCallId);
  if (e.result) parts.push(JSON.stringify(e.result.content), e.isError ? "error" : "");
  if (e.toolResults) parts.push(`${e.toolResults.length} results`);
  return parts.join(" ");
}

/** An option as the comparison reads it: functions and signals by kind, the rest as JSON. */
function optionValue(value: unknown): string {
  if (typeof value === "function") return "function";
  if (value instanceof AbortSignal) return "signal";
  return JSON.stringify(value);
}

/** Wall-clock timestamps (the loops stamp tool results with `Date.now()`) read as one value. */
function wallClockAside(key: string, value: unknown): unknown {
  return key === "timestamp" && typeof value === "number" && value > 1e12 ? "wall clock" : value;
}

/** One model request in one line: the context the stream function got (messages, system prompt, tools) and its options. */
function requestLine(request: AgentScenarioObservation["requests"][number], index: number): string {
  const { context, options } = request;
  const tools = (context.tools ?? []).map((tool) => `${tool.name}:${JSON.stringify(tool.parameters)}`);
  // Keys whose value is undefined read as absent (as a deep equality without strictness reads them): Turnkit's
  // requests also carry its own hooks' keys, undefined when the agent has none.
  const optionText = Object.keys(options ?? {})
    .filter((key) => (options as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map((key) => `${key}=${optionValue((options as Record<string, unknown>)[key])}`);
  return `request ${index}: ${JSON.stringify(context.systemPrompt)} ${JSON.stringify(context.messages, wallClockAside)} tools ${tools.join(",")} options ${optionText.join(" ")}`;
}

/** What the comparison reads of one run. */
function runLines(observation: AgentScenarioObservation): string[] {
  return [
    ...observation.requests.map(requestLine),
    ...observation.events.flatMap((event, index) => {
      // A streaming update is compared by the stream event it announces: its kind, not the partial's state.
      if (event.type === "message_update") return [`message_update ${String(event.assistantMessageEvent.type)}`];
      if (event.type === "tool_execution_update") return [];
      return [`${eventLine(event)} | ${observation.states[index]}`];
    }),
    "after each run:",
    ...observation.afterRuns,
    "transcript:",
    ...observation.transcript.map(messageLine),
    "listeners:",
    // Like the events above: tool progress is left out (when it arrives is not part of the shared ground).
    ...observation.listenerNotes.filter((note) => !note.endsWith(" tool_execution_update")),
    ...observation.rejections.map((error) => `rejected: ${error instanceof Error ? error.message : String(error)}`),
  ];
}

/** Runs `scenario` on pi's `Agent` and on Turnkit's and throws at their first difference. */
export async function checkSameAsPi(scenario: AgentScenario): Promise<void> {
  const pi = runLines(await runAgentScenario(scenario, PiAgent as unknown as AgentClass));
  const ours = runLines(await runAgentScenario(scenario));
  const at = pi.findIndex((line, index) => line !== ours[index]);
  if (at >= 0 || pi.length !== ours.length) {
    const index = at >= 0 ? at : Math.min(pi.length, ours.length);
    throw new InvariantViolation(
      INVARIANT,
      `line ${index}: pi ${JSON.stringify(pi[index])}, Turnkit ${JSON.stringify(ours[index])}`,
    );
  }
}
