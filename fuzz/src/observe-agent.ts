/**
 * Records one or more runs of an `Agent` on a virtual clock, with everything
 * the invariants need: events, transcript, rejections, leaks. Shared by the
 * generated scenarios and the named fault tests.
 */
import type { Agent, AgentEvent, AgentMessage } from "@turnkit/agent-loop";
import { type VirtualClock, abortListenerCount, probeRealTimers } from "@turnkit/agent-loop/testing";
import { unhandledRejections } from "./unhandled-rejections.js";
import { type DriveReport, driveUntilSettled, letStragglersSurface } from "./virtual-time.js";

/** Everything the runs of one Agent left behind, for the invariants. */
export interface AgentRunObservation {
  /** Every event of every run, as the first listener received them. */
  events: AgentEvent[];
  /** The agent's state as the first listener saw it at each of {@link events}, one line each (see `stateLine`). */
  states: string[];
  /** The agent's state after each run settled, one line each (see `stateLine`). */
  afterRuns: string[];
  /** The messages the agent started with. */
  history: AgentMessage[];
  /** `agent.state.messages` after the last run. */
  transcript: AgentMessage[];
  /** Each `prompt()` / `continue()` that rejected (none should). */
  rejections: unknown[];
  /** `agent.state.isStreaming` after the last run. */
  stillStreaming: boolean;
  drives: DriveReport[];
  /** Abort listeners still on the signals the runs handed to listeners. */
  listenersLeft: number;
  pendingVirtualTimers: number;
  pendingRealTimers: number;
  unhandledRejections: unknown[];
}

/** How to observe an agent. */
export interface ObserveAgentOptions {
  agent: Agent;
  clock: VirtualClock;
  /** Called inside the recording listener with each event and its index (host actions at event N). */
  onEvent?: (event: AgentEvent, index: number) => void;
  /** Microtask turns the recording listener takes per event (0: synchronous). */
  listenerTicks?: number;
  /** Subscribes further listeners after the recording one. */
  subscribeMore?: (agent: Agent) => void;
  /**
   * The runs, in order: each returns the promise of one `prompt()` or
   * `continue()` (or `undefined` to skip). Driven until settled; a stall is
   * ended by `agent.abort()`.
   */
  runs: ((agent: Agent) => Promise<void> | undefined)[];
  /** Timers the test scheduled on `clock` for itself; cleared before counting leaks. */
  hostTimers?: () => readonly unknown[];
  /** How the clock is driven (see `TurnScenario.pacing`); absent: every chain settles before the next timer. */
  pacing?: number;
}

/** What a listener can read of the agent's state, in one line: streaming, the streaming message, running calls, error, transcript length. */
export function stateLine(agent: Agent): string {
  const { isStreaming, streamingMessage, pendingToolCalls, errorMessage, messages } = agent.state;
  const streaming = streamingMessage as { role?: string; stopReason?: string } | undefined;
  return [
    isStreaming ? "streaming" : "idle",
    streaming ? `${streaming.role}/${streaming.stopReason ?? ""}` : "-",
    `calls [${[...pendingToolCalls].sort().join(",")}]`,
    `error ${JSON.stringify(errorMessage)}`,
    `${messages.length} messages`,
  ].join(" ");
}

export async function observeAgent(options: ObserveAgentOptions): Promise<AgentRunObservation> {
  const { agent, clock } = options;
  const history = agent.state.messages.slice();
  const events: AgentEvent[] = [];
  const states: string[] = [];
  const signals = new Set<AbortSignal>();
  const ticks = options.listenerTicks ?? 0;
  agent.subscribe((event, signal) => {
    signals.add(signal);
    const index = events.length;
    events.push(event);
    states.push(stateLine(agent));
    options.onEvent?.(event, index);
    if (ticks === 0) return;
    return (async () => {
      for (let turn = 0; turn < ticks; turn++) await Promise.resolve();
    })();
  });
  options.subscribeMore?.(agent);

  const rejectionsBefore = unhandledRejections().seen.length;
  const realTimers = probeRealTimers();
  const rejections: unknown[] = [];
  const drives: DriveReport[] = [];
  const afterRuns: string[] = [];
  try {
    for (const start of options.runs) {
      const run = start(agent);
      if (!run) continue;
      drives.push(
        await driveUntilSettled(
          run.catch((error: unknown) => void rejections.push(error)),
          clock,
          () => agent.abort(),
          options.pacing,
        ),
      );
      afterRuns.push(stateLine(agent));
    }
    await letStragglersSurface(clock, options.hostTimers?.());
  } finally {
    realTimers.restore();
  }
  return {
    events,
    states,
    afterRuns,
    history,
    transcript: agent.state.messages.slice(),
    rejections,
    stillStreaming: agent.state.isStreaming,
    drives,
    listenersLeft: [...signals].reduce((sum, signal) => sum + abortListenerCount(signal), 0),
    pendingVirtualTimers: clock.pendingCount(),
    pendingRealTimers: realTimers.pending(),
    unhandledRejections: unhandledRejections().seen.slice(rejectionsBefore),
  };
}
