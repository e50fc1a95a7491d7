/**
 * Test support for the named fault tests: an `Agent` or a `PiTurnRunner`
 * turn against a scripted model on a virtual clock, observed and checked
 * with every invariant in the fuzz README (`fuzz/src/observation-checks.ts`), so each
 * test only adds what is special about its fault.
 */
import type { Message } from "@mariozechner/pi-ai";
import { Agent, type AgentEvent, type AgentMessage, type AgentOptions, type AgentTool } from "@turnkit/agent-loop";
import {
  type ScriptEntry,
  type ScriptedModel,
  type VirtualClock,
  createScriptedModel,
  createVirtualClock,
} from "@turnkit/agent-loop/testing";
import type { RunTurnInput, RuntimeTool } from "@turnkit/agent-core";
import type { RuntimeEvent, TurnOutcome } from "@turnkit/protocol";
import { type AgentRunObservation, observeAgent } from "../../src/observe-agent.js";
import { type TurnRunObservation, observeTurn } from "../../src/observe-turn.js";
import { type TurnCheckOptions, checkAgentObservation, checkTurnInvariants } from "../../src/observation-checks.js";

/** Something the test does at a virtual time (e.g. abort after 5 s). */
export interface TimedAction {
  atMs: number;
  run: () => void;
}

/** What an Agent fault test sets up. */
export interface AgentFaultOptions {
  /** The scripted model's entries, one per request. */
  script?: ScriptEntry[];
  /** A stream function of the test's own (the scripted model is still created for its `model`). */
  streamFn?: AgentOptions["streamFn"];
  tools?: AgentTool<any>[];
  /** Further Agent options (loop callbacks, tool execution mode, ...). */
  options?: Partial<AgentOptions>;
  /** Runs inside the recording listener for each event (host actions at event N). */
  onEvent?: (event: AgentEvent, index: number, agent: Agent) => void;
  /** Listeners after the recording one (a failing host observer). */
  subscribeMore?: (agent: Agent) => void;
  /** Actions at virtual times. */
  at?: (agent: Agent) => TimedAction[];
  prompt?: string;
}

/** An observed Agent run, already checked against every invariant. */
export interface AgentFaultResult extends AgentRunObservation {
  agent: Agent;
  model: ScriptedModel;
  clock: VirtualClock;
  /** The last message of the transcript. */
  last: AgentMessage | undefined;
}

export async function runAgentFault(setup: AgentFaultOptions): Promise<AgentFaultResult> {
  const clock = createVirtualClock();
  const model = createScriptedModel(setup.script ?? [], { clock });
  const agent = new Agent({
    initialState: { systemPrompt: "fault test", model: model.model, tools: setup.tools ?? [] },
    streamFn: setup.streamFn ?? model.streamFn,
    ...setup.options,
  });
  const timers = (setup.at?.(agent) ?? []).map((action) => clock.setTimeout(action.run, action.atMs));
  const observation = await observeAgent({
    agent,
    clock,
    onEvent: (event, index) => setup.onEvent?.(event, index, agent),
    subscribeMore: setup.subscribeMore,
    runs: [() => agent.prompt(setup.prompt ?? "go")],
    hostTimers: () => timers,
  });
  checkAgentObservation(observation);
  return { ...observation, agent, model, clock, last: observation.transcript.at(-1) };
}

/** What a runner fault test sets up. */
export interface TurnFaultOptions {
  script?: ScriptEntry[];
  /** A stream function of the test's own instead of the scripted model's. */
  streamFn?: RunTurnInput["llm"]["streamFn"];
  tools?: RuntimeTool[];
  /** Fields of the turn input to set (hooks, retry, steering, ...). Default: no retry, no built-in tools. */
  input?: Partial<Omit<RunTurnInput, "eventWriter" | "signal" | "llm">> & { llm?: Partial<RunTurnInput["llm"]> };
  /** The writer's behaviour after recording each event; may throw, return a promise, or act. */
  write?: (event: RuntimeEvent, index: number, controller: AbortController) => void | Promise<void>;
  /** Actions at virtual times. */
  at?: (controller: AbortController) => TimedAction[];
  /** Abort the caller's signal before the turn starts. */
  abortBeforeStart?: boolean;
  /** Options of the invariant checks. */
  check?: TurnCheckOptions;
}

/** An observed turn, already checked against every invariant. */
export interface TurnFaultResult extends TurnRunObservation {
  outcome: TurnOutcome;
  model: ScriptedModel;
  clock: VirtualClock;
  /** The host's stored history: every accepted change applied. */
  stored: AgentMessage[];
  /** `session.status` values in order. */
  statuses: string[];
  /** `debug.trace` payloads in order. */
  traces: RuntimeEvent<"debug.trace">["payload"][];
}

export async function runTurnFault(setup: TurnFaultOptions): Promise<TurnFaultResult> {
  const clock = createVirtualClock();
  const model = createScriptedModel(setup.script ?? [], { clock });
  const controller = new AbortController();
  const given = setup.input ?? {};
  const timers = (setup.at?.(controller) ?? []).map((action) => clock.setTimeout(action.run, action.atMs));
  if (setup.abortBeforeStart) controller.abort();
  const observation = await observeTurn({
    input: {
      sessionId: "session-fault",
      turnId: "turn-fault",
      systemPrompt: "fault test",
      ...(given.startMode === "continue" ? {} : { userMessage: { text: "go" } }),
      llmRetry: false,
      disableBuiltinToolFallback: true,
      tools: setup.tools ?? [],
      ...given,
      llm: { model: model.model, streamFn: setup.streamFn ?? model.streamFn, ...given.llm },
    },
    clock,
    controller,
    write: setup.write && ((event, index) => setup.write!(event, index, controller)),
    hostTimers: () => timers,
  });
  const outcome = checkTurnInvariants(observation, { abortedBeforeStart: setup.abortBeforeStart, ...setup.check });
  let stored: AgentMessage[] = [...observation.history];
  for (const { change, accepted } of observation.offered) {
    if (!accepted) continue;
    stored = change.reason === "messageDelta" ? [...stored, ...change.messages] : [...change.messages];
  }
  return {
    ...observation,
    outcome,
    model,
    clock,
    stored,
    statuses: observation.events.flatMap((event) => (event.type === "session.status" ? [event.payload.status] : [])),
    traces: observation.events.flatMap((event) => (event.type === "debug.trace" ? [event.payload] : [])),
  };
}

/** The tool results of a transcript, in order. */
export function toolResults(messages: readonly AgentMessage[]): Extract<Message, { role: "toolResult" }>[] {
  return messages.filter(
    (message): message is Extract<Message, { role: "toolResult" }> => message.role === "toolResult",
  );
}

/** The text of a message's text blocks (a string content as is). */
export function textOf(message: AgentMessage | undefined): string {
  if (!message || !("content" in message)) return "";
  const content = message.content as unknown;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block: { type: string; text?: string }) => (block.type === "text" ? (block.text ?? "") : ""))
    .join("");
}

/** A promise that never settles (for work that ignores every signal). */
export function never<T = never>(): Promise<T> {
  return new Promise<T>(() => {});
}
