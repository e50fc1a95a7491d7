import { EventStream, type AssistantMessage, type AssistantMessageEvent } from "@mariozechner/pi-ai";
import { isTerminalEvent } from "./stream-fn.js";

type Result = IteratorResult<AssistantMessageEvent>;

/** The end of a stream, as its reads answer it. */
export const DONE: Result = Object.freeze({ value: undefined, done: true });

/** The final message a terminal event carries. */
function finalMessageOf(event: AssistantMessageEvent): AssistantMessage {
  return event.type === "error" ? event.error : (event as { message: AssistantMessage }).message;
}

/**
 * A call-stack layer's stream that is read by pull: each `next()` of its
 * reader asks the layer ({@link pull}) for the next event, which asks the
 * stream below, so a stack of layers adds no queue and no second reader per
 * event. It is a pi-ai `AssistantMessageEventStream` (its own iterator;
 * `result()` resolves with the final message once the terminal event went
 * by). A caller that asks for `result()` without reading gets it too: the
 * stream then reads on by itself and keeps the events for a later reader.
 */
export abstract class PullStream
  extends EventStream<AssistantMessageEvent, AssistantMessage>
  implements AsyncIterator<AssistantMessageEvent>
{
  /** Events read ahead for `result()`, oldest first; `undefined` until someone asked for it. */
  private ahead: Result[] | undefined;
  private aheadEnded = false;
  private wakeReader: (() => void) | undefined;

  constructor() {
    super(isTerminalEvent, finalMessageOf);
  }

  /** The layer's next event (never rejects); {@link settle} must be called with the final message at the terminal one. */
  protected abstract pull(): Promise<Result>;

  override [Symbol.asyncIterator](): AsyncIterator<AssistantMessageEvent> {
    return this;
  }

  next(): Promise<Result> {
    const ahead = this.ahead;
    if (!ahead) return this.pull();
    if (ahead.length > 0) return Promise.resolve(ahead.shift()!);
    if (this.aheadEnded) return Promise.resolve(DONE);
    return new Promise<void>((resolve) => {
      this.wakeReader = resolve;
    }).then(() => this.next());
  }

  /** The final message; a stream nobody reads is read to its end (see the class). */
  override result(): Promise<AssistantMessage> {
    if (!this.ahead) {
      this.ahead = [];
      void this.readAhead(this.ahead);
    }
    return this.finalMessage();
  }

  /** The final message, without reading anything. */
  finalMessage(): Promise<AssistantMessage> {
    return super.result();
  }

  /** Records the final message (`result()` resolves with it); the layer that answers the terminal event calls it. */
  settle(message: AssistantMessage): void {
    super.end(message);
  }

  private async readAhead(ahead: Result[]): Promise<void> {
    for (;;) {
      const result = await this.pull();
      if (result.done) break;
      ahead.push(result);
      this.wake();
      if (isTerminalEvent(result.value)) break;
    }
    this.aheadEnded = true;
    this.wake();
  }

  private wake(): void {
    const wake = this.wakeReader;
    this.wakeReader = undefined;
    wake?.();
  }
}
