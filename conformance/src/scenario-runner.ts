import type { AgentContext, AgentLoopConfig, AgentMessage, AgentOptions, StreamFn } from "@mariozechner/pi-agent-core";
import type { EventStream, Message } from "@mariozechner/pi-ai";
import type { AgentEvent } from "@mariozechner/pi-agent-core";
import { createScriptedModel } from "@turnkit/agent-loop/testing";
import type { HostAgent, LoopImplementation } from "./implementations.js";
import type { LoopSetup, Scenario, ScenarioContext, Surface } from "./scenario.js";
import { briefMessage, type Trace } from "./trace-normaliser.js";
import { TraceRecorder } from "./trace-recorder.js";

/** How long one scenario run may take before it is recorded as timed out. */
export const RUN_TIMEOUT_MS = 2_000;

/** The trace line that marks a run that did not finish in time. */
export const TIMEOUT_LINE = `TIMEOUT: the scenario did not finish within ${RUN_TIMEOUT_MS} ms`;

/** What one run of a scenario produced. */
export interface ScenarioRun {
  implementation: LoopImplementation["name"];
  surface: Surface;
  trace: Trace;
  timedOut: boolean;
}

/** The default `convertToLlm` of both `Agent`s, for the `agentLoop` surface. */
export function keepProviderMessages(messages: AgentMessage[]): Message[] {
  return messages.filter(
    (message): message is Message =>
      message.role === "user" || message.role === "assistant" || message.role === "toolResult",
  );
}

function errorMessageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function userPrompt(text: string): AgentMessage {
  return { role: "user", content: [{ type: "text", text }], timestamp: 0 };
}

/**
 * Runs `scenario` on one implementation through one surface and returns its
 * normalised trace. Never throws for what the loop does: a scenario that
 * throws records `scenario threw: ...`, one that hangs records
 * {@link TIMEOUT_LINE} and has its agents and controllers aborted.
 */
export async function runScenario(
  scenario: Scenario,
  impl: LoopImplementation,
  surface: Surface,
): Promise<ScenarioRun> {
  const trace = new TraceRecorder({ ...scenario.trace, sideChannel: surface === "agentLoop" });
  const scripted = createScriptedModel(scenario.script?.() ?? []);
  const agents: HostAgent[] = [];
  const controllers: AbortController[] = [];

  const recordRequests =
    (streamFn: StreamFn): StreamFn =>
    (model, context, options) => {
      trace.request(context, options);
      return streamFn(model, context, options);
    };
  const streamFn = recordRequests(scripted.streamFn);

  const settle = async (label: string, work: Promise<unknown> | (() => Promise<unknown>)) => {
    try {
      await (typeof work === "function" ? work() : work);
      trace.line(`${label} resolved`);
    } catch (error) {
      trace.line(`${label} rejected: ${errorMessageOf(error)}`);
    }
  };

  const createAgent = (options: AgentOptions = {}): HostAgent => {
    const agent = impl.createAgent({
      ...options,
      streamFn: options.streamFn ?? streamFn,
      initialState: { model: scripted.model, ...options.initialState },
    });
    agent.subscribe(trace.event);
    agents.push(agent);
    return agent;
  };

  const consume = async (label: string, start: () => EventStream<AgentEvent, AgentMessage[]>) => {
    let stream: EventStream<AgentEvent, AgentMessage[]>;
    try {
      stream = start();
    } catch (error) {
      trace.line(`${label} threw: ${errorMessageOf(error)}`);
      return;
    }
    for await (const event of stream) trace.event(event);
    const result = await stream.result();
    trace.line(`${label} result [${result.map(briefMessage).join(", ")}]`);
  };

  const loopConfig = (setup: LoopSetup): AgentLoopConfig => ({
    model: scripted.model,
    convertToLlm: setup.convertToLlm ?? keepProviderMessages,
    transformContext: setup.transformContext,
    getApiKey: setup.getApiKey,
    beforeToolCall: setup.beforeToolCall,
    afterToolCall: setup.afterToolCall,
    toolExecution: setup.toolExecution,
  });
  const loopContext = (setup: LoopSetup): AgentContext => ({
    systemPrompt: setup.systemPrompt ?? "",
    messages: [...(setup.messages ?? [])],
    tools: setup.tools ?? [],
  });
  const agentFor = (setup: LoopSetup) =>
    createAgent({
      initialState: {
        systemPrompt: setup.systemPrompt ?? "",
        messages: setup.messages ?? [],
        tools: setup.tools ?? [],
      },
      toolExecution: setup.toolExecution,
      beforeToolCall: setup.beforeToolCall,
      afterToolCall: setup.afterToolCall,
      transformContext: setup.transformContext,
      convertToLlm: setup.convertToLlm,
      getApiKey: setup.getApiKey,
      streamFn: setup.streamFn,
    });

  const context: ScenarioContext = {
    impl,
    surface,
    model: scripted.model,
    streamFn,
    trace,
    note: (text) => trace.note(text),
    recordRequests,
    settle,
    createAgent,
    async prompt(prompts, setup = {}) {
      if (surface === "agent") {
        const agent = agentFor(setup);
        await settle("prompt()", () => (typeof prompts === "string" ? agent.prompt(prompts) : agent.prompt(prompts)));
        return;
      }
      const messages = typeof prompts === "string" ? [userPrompt(prompts)] : prompts;
      await consume("agentLoop", () =>
        impl.agentLoop(messages, loopContext(setup), loopConfig(setup), undefined, setup.streamFn ?? streamFn),
      );
    },
    async continueFrom(setup) {
      if (surface === "agent") {
        const agent = agentFor(setup);
        await settle("continue()", () => agent.continue());
        return;
      }
      await consume("agentLoopContinue", () =>
        impl.agentLoopContinue(loopContext(setup), loopConfig(setup), undefined, setup.streamFn ?? streamFn),
      );
    },
    runLoop: (prompts, loopContextValue, config, signal, loopStreamFn) =>
      consume("agentLoop", () =>
        impl.agentLoop(
          prompts,
          loopContextValue,
          { model: scripted.model, ...config },
          signal,
          loopStreamFn ?? streamFn,
        ),
      ),
    runLoopContinue: (loopContextValue, config, signal) =>
      consume("agentLoopContinue", () =>
        impl.agentLoopContinue(loopContextValue, { model: scripted.model, ...config }, signal, streamFn),
      ),
    abortController() {
      const controller = new AbortController();
      controllers.push(controller);
      return controller;
    },
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), RUN_TIMEOUT_MS);
  });
  const work = scenario.run(context).then(
    () => "done" as const,
    (error: unknown) => {
      trace.line(`scenario threw: ${errorMessageOf(error)}`);
      return "done" as const;
    },
  );
  const outcome = await Promise.race([work, timeout]);
  clearTimeout(timer);
  if (outcome === "timeout") {
    trace.line(TIMEOUT_LINE);
    for (const agent of agents) agent.abort();
    for (const controller of controllers) controller.abort();
  }
  agents.forEach((agent, index) =>
    trace.agentState(agents.length === 1 ? "agent state" : `agent ${index + 1} state`, agent.state),
  );
  return { implementation: impl.name, surface, trace: trace.trace, timedOut: outcome === "timeout" };
}
