import type { AssistantMessage, AssistantMessageEvent } from "@mariozechner/pi-ai";
import type { LoopRun } from "./loop-run.js";
import type { AgentEvent } from "./types.js";

/**
 * What the loop has read of one assistant response: the partial message and
 * where it sits in the run's context (each update replaces it, as in pi),
 * and the terminal message once a `done` or `error` event came.
 */
export class ResponseRead {
  partial: AssistantMessage | undefined;
  placedAt = -1;
  final: AssistantMessage | undefined;
  /** An event sink is being called or awaited: a failure now is the sink's, not the stream's. */
  sinkError = false;

  constructor(private readonly run: LoopRun) {}

  /**
   * Records one event of the stream and emits what it means to the run's
   * listeners. Returns the listeners' promise, if any; the reader awaits it
   * before the next event and then clears {@link sinkError}. After a
   * terminal event {@link final} is set and the reader stops.
   */
  take(event: AssistantMessageEvent): Promise<void> | void {
    switch (event.type) {
      case "start":
        this.partial = event.partial;
        this.placedAt = this.run.context.messages.push(event.partial) - 1;
        return this.deliver({ type: "message_start", message: event.partial });
      case "done":
        this.final = event.message;
        return;
      case "error":
        this.final = event.error;
        return;
      default:
        if (!this.partial) return;
        this.partial = event.partial;
        this.run.context.messages[this.placedAt] = event.partial;
        return this.deliver({ type: "message_update", message: event.partial, assistantMessageEvent: event });
    }
  }

  private deliver(event: AgentEvent): Promise<void> | void {
    this.sinkError = true;
    const pending = this.run.emit(event);
    if (!pending) this.sinkError = false;
    return pending;
  }
}
