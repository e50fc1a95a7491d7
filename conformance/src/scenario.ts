import type {
  AgentContext,
  AgentLoopConfig,
  AgentMessage,
  AgentOptions,
  AgentTool,
  StreamFn,
  ToolExecutionMode,
} from "@mariozechner/pi-agent-core";
import type { Model } from "@mariozechner/pi-ai";
import type { ScriptEntry } from "@turnkit/agent-loop/testing";
import type { HostAgent, LoopImplementation } from "./implementations.js";
import type { NormaliseOptions, Trace } from "./trace-normaliser.js";
import type { TraceRecorder } from "./trace-recorder.js";

/**
 * How a scenario drives the loop: through `Agent` and its `subscribe`
 * listener, or through the raw `agentLoop`/`agentLoopContinue` event stream.
 */
export type Surface = "agent" | "agentLoop";

/**
 * What a run starts from, in terms both surfaces understand. On the `agent`
 * surface it becomes `AgentOptions` and `initialState`; on the `agentLoop`
 * surface an `AgentContext` and an `AgentLoopConfig` (with the same default
 * `convertToLlm` as `Agent`).
 */
export interface LoopSetup {
  systemPrompt?: string;
  messages?: AgentMessage[];
  tools?: AgentTool<any>[];
  toolExecution?: ToolExecutionMode;
  beforeToolCall?: AgentLoopConfig["beforeToolCall"];
  afterToolCall?: AgentLoopConfig["afterToolCall"];
  transformContext?: AgentLoopConfig["transformContext"];
  convertToLlm?: AgentLoopConfig["convertToLlm"];
  getApiKey?: AgentLoopConfig["getApiKey"];
  /** A stream function to use instead of the scripted one (e.g. a proxy client); wrap it with `recordRequests` if its calls should show. */
  streamFn?: StreamFn;
}

/**
 * What a scenario gets for one run on one implementation and surface. Every
 * run has its own scripted model (a fresh copy of the scenario's script), so
 * tool call ids are `call_1`, `call_2`, ... on both sides.
 */
export interface ScenarioContext {
  readonly impl: LoopImplementation;
  readonly surface: Surface;
  /** The scripted model's description; pass it as `model`. */
  readonly model: Model<any>;
  /** The scripted stream function; every call is recorded as a `request N:` line. */
  readonly streamFn: StreamFn;
  readonly trace: TraceRecorder;
  /** Records what the host or a tool did, as a `· text` line. */
  note(text: string): void;
  /** Wraps another stream function so its calls are recorded as request lines too. */
  recordRequests(streamFn: StreamFn): StreamFn;
  /** Awaits `work` and records `label resolved` or `label rejected: <message>`. Never rejects. */
  settle(label: string, work: Promise<unknown> | (() => Promise<unknown>)): Promise<void>;
  /**
   * An `Agent` of the implementation under test with the scripted model and
   * stream function, the trace listener subscribed first. Its final state is
   * recorded when the scenario returns.
   */
  createAgent(options?: AgentOptions): HostAgent;
  /** Runs `prompts` through the surface under test and records the outcome. */
  prompt(prompts: string | AgentMessage[], setup?: LoopSetup): Promise<void>;
  /** Continues from `setup.messages` through the surface under test and records the outcome. */
  continueFrom(setup: LoopSetup): Promise<void>;
  /** The raw `agentLoop` with a full config; consumes the stream into the trace and records `result()`. */
  runLoop(
    prompts: AgentMessage[],
    context: AgentContext,
    config: Omit<AgentLoopConfig, "model">,
    signal?: AbortSignal,
    streamFn?: StreamFn,
  ): Promise<void>;
  /** The raw `agentLoopContinue`; like {@link ScenarioContext.runLoop}. A synchronous throw is recorded. */
  runLoopContinue(context: AgentContext, config: Omit<AgentLoopConfig, "model">, signal?: AbortSignal): Promise<void>;
  /** An `AbortController` the runner also aborts if the scenario times out. */
  abortController(): AbortController;
}

/**
 * One differential scenario: the same script, tools and host actions run on
 * pi-agent-core and on Turnkit, through each listed surface.
 */
export interface Scenario {
  /** Stable kebab-case id; keys `DOCUMENTED_DIFFERENCES` and `SUSPECTED_BUGS`. */
  id: string;
  /** One line: given / when. */
  title: string;
  /** Numbered behaviours of docs/behaviour.md the scenario exercises, e.g. `["L4", "L5"]`. */
  spec: readonly string[];
  /** Surfaces to run through; each is a separate comparison. */
  surfaces: readonly Surface[];
  /** The model's responses, built fresh for every run. Default: none. */
  script?: () => ScriptEntry[];
  /** Extra fields to show in the trace. */
  trace?: NormaliseOptions;
  /** The host's part: create agents, prompt, steer, abort. */
  run(context: ScenarioContext): Promise<void>;
  /**
   * Then: what the (shared) trace must show, beyond being equal on both
   * sides. Guards against both implementations being wrong the same way,
   * e.g. a deadlock that times out on both.
   */
  then?: (trace: Trace, surface: Surface) => void;
}

/** Identity helper so scenario files get type checking and inference. */
export function defineScenario(scenario: Scenario): Scenario {
  return scenario;
}
