import * as pi from "@mariozechner/pi-agent-core";
import * as turnkit from "@turnkit/agent-loop";
import "./custom-messages.js";

/** Which loop a trace came from. */
export type ImplementationName = "pi" | "turnkit";

/**
 * The public surface of an `Agent` the scenarios use, typed as pi's. Our
 * `Agent` must be assignable to it without a cast: that is the compile-time
 * half of "code written for pi runs unchanged" (behaviour L0).
 */
export type HostAgent = Pick<
  pi.Agent,
  | "state"
  | "prompt"
  | "continue"
  | "steer"
  | "followUp"
  | "abort"
  | "waitForIdle"
  | "subscribe"
  | "reset"
  | "hasQueuedMessages"
  | "clearAllQueues"
  | "clearSteeringQueue"
  | "clearFollowUpQueue"
  | "signal"
  | "steeringMode"
  | "followUpMode"
>;

/**
 * One loop implementation under test. Every entry takes pi's option and
 * context types, so a scenario is written once, against pi's API, and runs
 * unchanged on both.
 */
export interface LoopImplementation {
  readonly name: ImplementationName;
  /** Human-readable name for tables. */
  readonly label: string;
  /** `new Agent(options)`. */
  createAgent(options: pi.AgentOptions): HostAgent;
  readonly agentLoop: typeof pi.agentLoop;
  readonly agentLoopContinue: typeof pi.agentLoopContinue;
  /** The proxy stream function; ours must be assignable to pi's type. */
  readonly streamProxy: typeof pi.streamProxy;
}

/** The reference: `@mariozechner/pi-agent-core` 0.73.1. */
export const PI: LoopImplementation = {
  name: "pi",
  label: "@mariozechner/pi-agent-core 0.73.1",
  createAgent: (options) => new pi.Agent(options),
  agentLoop: pi.agentLoop,
  agentLoopContinue: pi.agentLoopContinue,
  streamProxy: pi.streamProxy,
};

/** Ours: `@turnkit/agent-loop`. */
export const TURNKIT: LoopImplementation = {
  name: "turnkit",
  label: "@turnkit/agent-loop",
  createAgent: (options) => new turnkit.Agent(options),
  agentLoop: turnkit.agentLoop,
  agentLoopContinue: turnkit.agentLoopContinue,
  streamProxy: turnkit.streamProxy,
};

/** Both implementations, reference first. */
export const IMPLEMENTATIONS: readonly LoopImplementation[] = [PI, TURNKIT];
