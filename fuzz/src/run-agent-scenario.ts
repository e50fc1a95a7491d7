/**
 * Runs one generated {@link AgentScenario} through a real `Agent` against
 * the scripted model on a virtual clock, and records everything the
 * invariants need.
 */
import type { Api, Context, Message, Model, SimpleStreamOptions } from "@mariozechner/pi-ai";
import {
  Agent,
  type AgentEvent,
  type AgentMessage,
  type AgentOptions,
  agentLoop,
  agentLoopContinue,
} from "@turnkit/agent-loop";
import { createScriptedModel, createVirtualClock, revokedProxy, userMessage } from "@turnkit/agent-loop/testing";
import { afterToolPatch, decisionSequence } from "./decision-sequence.js";
import { type AgentRunObservation, observeAgent } from "./observe-agent.js";
import { type LaterRun, type PromptForm, settingOptions } from "./agent-settings.js";
import type { AgentHookSpec, AgentScenario, HostAction, ToolBehaviour } from "./scenario.js";
import { churnListeners } from "./listener-churn.js";
import { fauxResponse, fauxScript, registerFauxFor } from "./faux-provider-turns.js";
import { createAgentTools } from "./scenario-tools.js";
import {
  earlierExchange,
  markedText,
  responseEntry,
  withFallbackAnswers,
  withUnknownEvents,
} from "./scripted-entries.js";

function behavioursOf(scenario: {
  requests: { calls: { id: string; behaviour: ToolBehaviour }[] }[];
}): Map<string, ToolBehaviour> {
  return new Map(
    scenario.requests.flatMap((request) => request.calls.map((call) => [call.id, call.behaviour] as const)),
  );
}

function loopHooks(spec: AgentHookSpec, abort: () => void): Partial<AgentOptions> {
  const options: Partial<AgentOptions> = {};
  if (spec.beforeToolCall) {
    const next = decisionSequence(spec.beforeToolCall, "allow");
    options.beforeToolCall = async () => {
      const decision = next();
      switch (decision) {
        case "allow":
          return undefined;
        case "block":
          return { block: true, reason: "blocked by the scenario" };
        case "terminateAgent":
          return { terminateAgent: true };
        case "throw":
          throw new Error("beforeToolCall failed");
        case "abort":
          abort();
          return undefined;
        case "revoked":
          return revokedProxy() as never;
      }
    };
  }
  if (spec.afterToolCall) {
    const next = decisionSequence(spec.afterToolCall, "none");
    options.afterToolCall = async () => afterToolPatch(next(), "afterToolCall");
  }
  if (spec.onToolExecutionStart) {
    const next = decisionSequence(spec.onToolExecutionStart, "observe");
    options.onToolExecutionStart = () => {
      const decision = next();
      if (decision === "throw") throw new Error("onToolExecutionStart failed");
      if (decision === "abort") abort();
      if (decision === "revoked") return revokedProxy() as never;
    };
  }
  if (spec.shouldStopAfterTurn) {
    const next = decisionSequence<boolean | "throw" | "revoked">(spec.shouldStopAfterTurn, false);
    options.shouldStopAfterTurn = () => {
      const decision = next();
      if (decision === "throw") throw new Error("shouldStopAfterTurn failed");
      if (decision === "revoked") return revokedProxy() as never;
      return decision;
    };
  }
  if (spec.shouldStopAfterSteering) {
    const next = decisionSequence<boolean | "throw" | "revoked">(spec.shouldStopAfterSteering, false);
    options.shouldStopAfterSteering = async () => {
      const decision = next();
      if (decision === "throw") throw new Error("shouldStopAfterSteering failed");
      if (decision === "revoked") return revokedProxy() as never;
      return decision;
    };
  }
  if (spec.transformContext) {
    const next = decisionSequence(spec.transformContext, "pass");
    options.transformContext = async (messages) => {
      const decision = next();
      if (decision === "throw") throw new Error("transformContext failed");
      // A host's hook that answers no list: the run fails naming the hook.
      if (decision === "noArray") return undefined as unknown as AgentMessage[];
      if (decision === "revoked") return revokedProxy() as never;
      return messages;
    };
  }
  return options;
}

/** An Agent run of a scenario, plus the messages the host handed over. */
export interface AgentScenarioObservation extends AgentRunObservation {
  /** Prompt, steering and follow-up messages the host handed to the agent. */
  hostMessages: AgentMessage[];
  /** Each malformed message the host handed over (`malformed` actions): the call, and what it threw. */
  malformedCalls: { call: string; thrown: unknown }[];
  /** What each model request handed the stream function, in order: a copy of its context as it was then, and its options. */
  requests: { context: Context; options: SimpleStreamOptions | undefined }[];
  /** What the listeners of a `listenerChurn` got, in order (empty without one). */
  listenerNotes: string[];
}

/** An `Agent` class: Turnkit's, or one with its constructor and methods (pi-agent-core's, for the differential run). */
export type AgentClass = new (options: AgentOptions) => Agent;

/**
 * Runs the scenario to its end on an agent of `AgentClass` (Turnkit's
 * `Agent` unless given) and records it. Never rejects for anything the
 * agent does.
 */
export async function runAgentScenario(
  scenario: AgentScenario,
  AgentClass: AgentClass = Agent,
): Promise<AgentScenarioObservation> {
  const clock = createVirtualClock();
  const model = createScriptedModel(scenario.requests.map(responseEntry), {
    clock,
    ...(scenario.livePartial && { livePartial: true }),
  });
  const history = scenario.withHistory ? earlierExchange() : [];
  const environment = { clock, behaviours: behavioursOf(scenario), executed: [] as string[] };
  const hostMessages: AgentMessage[] = [];
  let hostMessageCount = 0;
  const hostMessage = (kind: string) => {
    hostMessageCount++;
    const message = userMessage(markedText(`${kind}${hostMessageCount}`, `${kind} from the host`), {
      timestamp: 1_000 + hostMessageCount,
    });
    hostMessages.push(message);
    return message;
  };

  const requests: AgentScenarioObservation["requests"] = [];
  const malformedCalls: AgentScenarioObservation["malformedCalls"] = [];
  const listenerNotes: string[] = [];
  const answer = withUnknownEvents(withFallbackAnswers(model), scenario.unknownEvents);
  const record = (context: Context, options: SimpleStreamOptions | undefined) => {
    requests.push({ context: JSON.parse(JSON.stringify(context)) as Context, options });
  };
  // With `faux`, no stream function: the agent sends each request through pi-ai's streamSimple to the faux provider.
  const faux = scenario.faux && registerFauxFor(scenario.faux);
  faux?.setResponses(fauxScript(scenario.requests.map(fauxResponse), scenario.faux!, record));
  let agent!: Agent;
  const abort = () => agent.abort();
  agent = new AgentClass({
    initialState: {
      systemPrompt: "You are a generated scenario.",
      model: faux?.getModel() ?? model.model,
      tools: createAgentTools(scenario.toolModes, environment),
      messages: history,
    },
    ...(!faux && {
      streamFn: (requestModel: Model<Api>, context: Context, options?: SimpleStreamOptions) => {
        record(context, options);
        return answer(requestModel, context, options);
      },
    }),
    toolExecution: scenario.toolExecution,
    steeringMode: scenario.steeringMode,
    followUpMode: scenario.followUpMode,
    ...loopHooks(scenario.hooks, abort),
    ...settingOptions(scenario.settings),
  });
  if (scenario.settings) agent.state.thinkingLevel = scenario.settings.thinkingLevel;

  let clears = 0;
  const perform = (action: HostAction) => {
    switch (action.kind) {
      case "steer":
        agent.steer(hostMessage("steer"));
        return;
      case "steerBatch":
        agent.steerBatch([hostMessage("batch"), hostMessage("batch")]);
        return;
      case "followUp":
        agent.followUp(hostMessage("followUp"));
        return;
      case "abort":
        agent.abort();
        return;
      case "malformed":
        malformedCalls.push(handOverMalformed(agent, action.variant ?? malformedCalls.length));
        return;
      case "clear":
        CLEAR_QUEUES[clears++ % CLEAR_QUEUES.length]!(agent);
        return;
    }
  };

  const hostTimers = scenario.actions.flatMap((action) =>
    action.trigger.kind === "time" ? [clock.setTimeout(() => perform(action), action.trigger.ms)] : [],
  );
  const observation = await observeAgent({
    agent,
    clock,
    listenerTicks: scenario.listenerTicks,
    pacing: scenario.pacing,
    onEvent: (event, index) => {
      for (const action of scenario.actions)
        if (
          action.trigger.kind === "event"
            ? action.trigger.index === index
            : action.trigger.kind === "agentEnd" && event.type === "agent_end"
        )
          perform(action);
    },
    subscribeMore: () => {
      if (scenario.listenerChurn) churnListeners(agent, scenario.listenerChurn, listenerNotes);
      if (!scenario.listenerFailure) return;
      const { index, mode } = scenario.listenerFailure;
      let seen = 0;
      agent.subscribe(() => {
        if (seen++ !== index) return;
        if (mode === "throw") throw new Error("the host listener failed");
        return Promise.reject(new Error("the host listener rejected"));
      });
    },
    runs: [
      () => startRun(agent, scenario.promptForm ?? "message", hostMessage),
      () => (scenario.continueWhileQueued && agent.hasQueuedMessages() ? agent.continue() : undefined),
      () => laterRun(agent, scenario.laterRun, hostMessage),
    ],
    hostTimers: () => hostTimers,
  }).finally(() => faux?.unregister());
  return { ...observation, hostMessages, requests, malformedCalls, listenerNotes };
}

/** The three ways to empty an Agent's queues, in the order `clear` actions take them. */
const CLEAR_QUEUES: readonly ((agent: Agent) => void)[] = [
  (agent) => agent.clearSteeringQueue(),
  (agent) => agent.clearFollowUpQueue(),
  (agent) => agent.clearAllQueues(),
];

/** A one-pixel PNG, the image a `textWithImages` prompt carries. */
const PROMPT_IMAGE = {
  type: "image" as const,
  data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
  mimeType: "image/png",
};

/** Starts the first run in the scenario's prompt form; every message it hands over is recorded by `hostMessage`. */
function startRun(agent: Agent, form: PromptForm, hostMessage: (kind: string) => AgentMessage): Promise<void> {
  switch (form) {
    case "message":
      return agent.prompt(hostMessage("prompt"));
    case "messages":
      return agent.prompt([hostMessage("prompt"), hostMessage("prompt")]);
    case "text":
      return agent.prompt(textOf(hostMessage("prompt")));
    case "textWithImages":
      return agent.prompt(textOf(hostMessage("prompt")), [PROMPT_IMAGE]);
  }
}

function textOf(message: AgentMessage): string {
  return (message as { content: string }).content;
}

/** The run after the first ones, if the scenario has one. */
function laterRun(
  agent: Agent,
  later: LaterRun | undefined,
  hostMessage: (kind: string) => AgentMessage,
): Promise<void> | undefined {
  switch (later) {
    case undefined:
      return undefined;
    case "prompt":
      return agent.prompt(hostMessage("later"));
    case "continue":
      return agent.continue();
    case "resetAndPrompt":
      agent.reset();
      return agent.prompt(hostMessage("later"));
  }
}

/** Malformed messages a host without types might hand over, in turn: none may be queued (or, for the stateless loop, run). */
const MALFORMED: readonly { call: string; hand: (agent: Agent) => void }[] = [
  { call: "steer(null)", hand: (agent) => agent.steer(null as never) },
  { call: "followUp(numeric content)", hand: (agent) => agent.followUp({ role: "user", content: 5 } as never) },
  {
    call: "steerBatch([good, no role])",
    hand: (agent) =>
      agent.steerBatch([userMessage("a well-formed one"), { content: "no role" }] as unknown as AgentMessage[]),
  },
  {
    call: "steer(text block without text)",
    hand: (agent) => agent.steer({ role: "user", content: [{ type: "text" }] } as never),
  },
  // The stateless loop, handed the agent's transcript with a malformed message or tool added: it must throw before any event.
  {
    call: "agentLoop(context.messages with numeric content)",
    hand: (agent) =>
      void agentLoop(
        [userMessage("never sent")],
        { systemPrompt: "", messages: [...agent.state.messages, { role: "user", content: 5 } as never] },
        { model: agent.state.model, convertToLlm: (messages) => messages as never },
      ),
  },
  {
    call: "agentLoopContinue(context.tools[0] without execute)",
    hand: (agent) =>
      void agentLoopContinue(
        { systemPrompt: "", messages: [userMessage("never sent")], tools: [{ name: "broken" } as never] },
        { model: agent.state.model, convertToLlm: (messages) => messages as never },
      ),
  },
];

/** Hands over the `index`-th malformed message (cycling) and records what the call threw. */
function handOverMalformed(agent: Agent, index: number): { call: string; thrown: unknown } {
  const { call, hand } = MALFORMED[index % MALFORMED.length]!;
  try {
    hand(agent);
    return { call, thrown: undefined };
  } catch (error) {
    return { call, thrown: error };
  }
}
