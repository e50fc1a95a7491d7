import type { AgentEvent, AgentState } from "@mariozechner/pi-agent-core";
import type { Context, SimpleStreamOptions } from "@mariozechner/pi-ai";
import {
  briefMessage,
  normaliseEvent,
  normaliseRequest,
  type NormaliseOptions,
  type Trace,
} from "./trace-normaliser.js";

interface EventWaiter {
  matches: (event: AgentEvent) => boolean;
  action: () => void;
}

/** How a {@link TraceRecorder} places requests and notes. */
export interface TraceRecorderOptions extends NormaliseOptions {
  /**
   * Put request and note lines after all event lines instead of between
   * them. For the raw `agentLoop` surface: its consumer reads the event
   * stream asynchronously, so where a request falls between consumed
   * events depends on microtask counts, not on behaviour.
   */
  sideChannel?: boolean;
}

/**
 * Collects the trace of one scenario run on one implementation. Events,
 * requests and notes are appended synchronously, in the order they happen,
 * so the line order is the observable order.
 */
export class TraceRecorder {
  private readonly lines: string[] = [];
  private readonly sideLines: string[] = [];
  private readonly seen: AgentEvent[] = [];
  private waiters: EventWaiter[] = [];
  private requestCount = 0;

  constructor(private readonly options: TraceRecorderOptions = {}) {}

  /** The trace so far (a copy); side-channel lines last. */
  get trace(): Trace {
    return [...this.lines, ...this.sideLines];
  }

  /** Appends a line that is part of the observable order (events, outcomes, final state). */
  line(text: string): void {
    this.lines.push(text);
  }

  private sideLine(text: string): void {
    (this.options.sideChannel ? this.sideLines : this.lines).push(text);
  }

  /** Records a loop event. Suitable as a synchronous `Agent.subscribe` listener. */
  readonly event = (event: AgentEvent): void => {
    this.lines.push(normaliseEvent(event, this.options));
    this.seen.push(event);
    const ready = this.waiters.filter((waiter) => waiter.matches(event));
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((waiter) => !ready.includes(waiter));
    for (const waiter of ready) waiter.action();
  };

  /** Records a model request (numbered from 1). */
  request(context: Context, streamOptions: SimpleStreamOptions | undefined): void {
    this.requestCount += 1;
    this.sideLine(normaliseRequest(this.requestCount, context, streamOptions, this.options));
  }

  /** Records what the host or a tool did, prefixed with `· ` so it stands out from events. */
  note(text: string): void {
    this.sideLine(`· ${text}`);
  }

  /** Records the observable state of an Agent after its run: transcript and flags. */
  agentState(label: string, state: AgentState): void {
    const error = state.errorMessage === undefined ? "-" : JSON.stringify(state.errorMessage);
    this.lines.push(
      `${label}: streaming=${state.isStreaming} pending=${state.pendingToolCalls.size} error=${error} messages=[${state.messages.map(briefMessage).join(", ")}]`,
    );
  }

  /**
   * Runs `action` synchronously, inside the listener call, right after the
   * first event matching `predicate` is recorded (at once if one already
   * was). On the `Agent` surface the loop is still waiting for listeners
   * then, so the action lands at an exact point of the run on both sides.
   */
  onEvent(predicate: (event: AgentEvent) => boolean, action: () => void): void {
    if (this.seen.some(predicate)) action();
    else this.waiters.push({ matches: predicate, action });
  }

  /** Resolves once an event matching `predicate` is recorded. */
  whenEvent(predicate: (event: AgentEvent) => boolean): Promise<void> {
    return new Promise((resolve) => this.onEvent(predicate, resolve));
  }
}
