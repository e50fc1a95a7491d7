import type { AssistantMessage, AssistantMessageEvent } from "@mariozechner/pi-ai";
import { DONE, PullStream } from "./pull-stream.js";
import type { TimedRequest } from "./stream-timeouts.js";
import { isTerminalEvent } from "./stream-fn.js";

/**
 * The stream of one request through the retry layer, as the caller reads
 * it: nothing until an attempt reached its commit point, then that
 * attempt's held-back events, then the attempt's own reads (each `next()`
 * is the attempt's, so the layer adds nothing per event); or the request's
 * final failure.
 */
export class RetriedRequest extends PullStream {
  private held: AssistantMessageEvent[] = [];
  private heldAt = 0;
  private committed: TimedRequest | undefined;
  /** The attempt being read before its commit point, let go when the reader stops early. */
  current: TimedRequest | undefined;
  /** The request's own terminal event (a failure it decided), until read. */
  private final: AssistantMessageEvent | undefined;
  /** No more events for the reader: the final one was read, or the reader ended the stream. */
  private closed = false;
  private readonly decided: Promise<void>;
  private resolveDecided!: () => void;

  constructor() {
    super();
    this.decided = new Promise((resolve) => {
      this.resolveDecided = resolve;
    });
  }

  protected pull(): Promise<IteratorResult<AssistantMessageEvent>> {
    if (this.closed) return Promise.resolve(DONE);
    const { held } = this;
    if (this.heldAt < held.length) {
      const value = held[this.heldAt]!;
      held[this.heldAt++] = undefined as never;
      return Promise.resolve({ value, done: false });
    }
    if (this.committed) return this.committed.next();
    const final = this.final;
    if (final) {
      this.closed = true;
      return Promise.resolve({ value: final, done: false });
    }
    return this.decided.then(() => this.pull());
  }

  /** Whether the reader stopped early: no attempt is sent any more. */
  get isClosed(): boolean {
    return this.closed && this.final === undefined && this.committed === undefined;
  }

  /** The reader stops early (a `for await` that breaks): the attempt being read is let go. */
  return(): Promise<IteratorResult<AssistantMessageEvent>> {
    this.closed = true;
    this.resolveDecided();
    void (this.committed ?? this.current)?.return();
    return Promise.resolve(DONE);
  }

  /** Ends the stream for its reader (pi-ai's `end()`): a pending read returns, nothing more is read. */
  override end(): void {
    void this.return();
  }

  /** `attempt` reached its commit point after `held` (in order): they go out first, then the attempt's own reads. */
  commit(attempt: TimedRequest, held: AssistantMessageEvent[]): void {
    this.held = held;
    this.committed = attempt;
    const last = held[held.length - 1];
    if (last && isTerminalEvent(last)) this.settle(last.type === "done" ? last.message : last.error);
    else void attempt.finalMessage().then((message) => this.settle(message));
    this.resolveDecided();
  }

  /** The request failed for good with `message`. */
  fail(message: AssistantMessage): void {
    this.final = { type: "error", reason: message.stopReason === "aborted" ? "aborted" : "error", error: message };
    this.settle(message);
    this.resolveDecided();
  }
}
