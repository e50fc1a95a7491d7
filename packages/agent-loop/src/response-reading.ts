import type { AssistantMessage, AssistantMessageEvent } from "@mariozechner/pi-ai";
import type { LoopRun } from "./loop-run.js";
import type { EndableResponse } from "./run-abort-watch.js";
import { failedAssistantMessage, snapshotMessage } from "./synthetic-messages.js";

/** A model response as the loop reads it: pi-ai's `AssistantMessageEventStream`, or any async iterable of its events. */
export type ResponseStream = AsyncIterable<AssistantMessageEvent> & {
  end?: (result?: AssistantMessage) => void;
  result?: () => Promise<AssistantMessage>;
};

type EventResult = IteratorResult<AssistantMessageEvent, unknown>;

/**
 * Reads `response` to its final message, records that message in the run's
 * context and announces it; resolves to it. Rejects only when the event sink
 * fails (the request is then aborted first).
 *
 * Every event reaches the sink after exactly the microtask ticks a
 * `for await` loop in an async function would take, and the response is
 * closed (`return()`, awaited) where such a loop would close it; hosts'
 * tests depend on that interleaving (`test/microtask-ticks.test.ts` pins
 * it). The reading is an object and one promise reaction per event instead
 * of a suspended async function, whose every `await` allocates twice as much:
 * this is the loop's hottest path, one pass per streamed delta.
 */
export function readResponse(run: LoopRun, response: ResponseStream): Promise<AssistantMessage> {
  return new Promise((resolve, reject) => new ResponseReading(run, response, resolve, reject).start());
}

/**
 * The response's iterator, as `for await` gets it, failing with the same
 * messages: a plain iterable is read with each value awaited.
 */
function iteratorOf(response: ResponseStream): AsyncIterator<AssistantMessageEvent> {
  const iterable = response as unknown as Partial<
    AsyncIterable<AssistantMessageEvent> & Iterable<AssistantMessageEvent>
  >;
  const method = iterable[Symbol.asyncIterator];
  if (method === undefined || method === null) {
    if (typeof iterable[Symbol.iterator] === "function") return awaitEach(iterable as Iterable<AssistantMessageEvent>);
    throw new TypeError("response is not async iterable");
  }
  if (typeof method !== "function") throw new TypeError("response is not async iterable");
  const iterator: unknown = method.call(response);
  if (!isObject(iterator)) throw new TypeError("Result of the Symbol.asyncIterator method is not an object");
  return iterator as AsyncIterator<AssistantMessageEvent>;
}

async function* awaitEach<T>(iterable: Iterable<T>): AsyncGenerator<T> {
  for await (const value of iterable) yield value;
}

function isObject(value: unknown): value is object {
  return (typeof value === "object" && value !== null) || typeof value === "function";
}

/** How the loop over the response ended: normally, or by a throw (of the stream, of the sink, or of closing the stream). */
type LoopEnd = { kind: "normal" } | { kind: "throw"; error: unknown };

/** The loop ran out of events or was left at the final one. */
const NORMAL_END: LoopEnd = { kind: "normal" };

/**
 * One response being read. The steps below follow the `for await` loop and
 * the code after it in order; each `await` of that code is a `then` on the
 * value `Promise.resolve` makes of it, which takes the same ticks.
 */
class ResponseReading {
  private iterator: AsyncIterator<AssistantMessageEvent> | undefined;
  private nextMethod: AsyncIterator<AssistantMessageEvent>["next"] | undefined;
  private partial: AssistantMessage | undefined;
  /** Where the partial sits in the context; each update replaces it, as in pi. */
  private placedAt = -1;
  private final: AssistantMessage | undefined;
  private streamError: unknown;
  /** True while the sink handles an event: a failure then fails the run instead of the response. */
  private sinkError = false;
  /** A stream that ignores the signal is ended by the loop after a grace period, so an abort always ends the response. */
  private readonly endable: boolean;

  constructor(
    private readonly run: LoopRun,
    private readonly response: ResponseStream,
    private readonly resolve: (message: AssistantMessage) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.endable = run.signal !== undefined && typeof response.end === "function";
  }

  start(): void {
    if (this.endable) this.run.abortWatch.watchResponse(this.response as EndableResponse);
    try {
      const iterator = iteratorOf(this.response);
      this.iterator = iterator;
      this.nextMethod = iterator.next;
    } catch (error) {
      return this.loopEnded({ kind: "throw", error });
    }
    this.readNext();
  }

  private readNext(): void {
    let next: unknown;
    try {
      next = this.nextMethod!.call(this.iterator);
    } catch (error) {
      // As in `for await`: a failing `next()` ends the loop without closing the iterator.
      return this.loopEnded({ kind: "throw", error });
    }
    Promise.resolve(next).then(this.onResult, this.onNextFailure);
  }

  private readonly onNextFailure = (error: unknown): void => this.loopEnded({ kind: "throw", error });

  private readonly onResult = (result: unknown): void => {
    let event: AssistantMessageEvent;
    try {
      if (!isObject(result)) throw new TypeError(`Iterator result ${String(result)} is not an object`);
      if ((result as EventResult).done) return this.loopEnded(NORMAL_END);
      event = (result as EventResult).value as AssistantMessageEvent;
    } catch (error) {
      return this.loopEnded({ kind: "throw", error });
    }
    let pending: unknown;
    try {
      pending = this.deliver(event);
    } catch (error) {
      return this.close({ kind: "throw", error });
    }
    if (pending) Promise.resolve(pending).then(this.onDelivered, this.onDeliveryFailure);
    else this.onDelivered();
  };

  /** The body of the loop: records the event and hands it to the sink; the sink's answer, if any. */
  private deliver(event: AssistantMessageEvent): unknown {
    const { run } = this;
    switch (event.type) {
      case "start":
        this.partial = event.partial;
        this.placedAt = run.context.messages.push(this.partial) - 1;
        this.sinkError = true;
        return run.emit({ type: "message_start", message: this.partial });
      case "done":
        this.final = event.message;
        return undefined;
      case "error":
        this.final = event.error;
        return undefined;
      default: {
        if (!this.partial) return undefined;
        this.partial = event.partial;
        run.context.messages[this.placedAt] = this.partial;
        this.sinkError = true;
        return run.emit({ type: "message_update", message: this.partial, assistantMessageEvent: event });
      }
    }
  }

  private readonly onDelivered = (): void => {
    this.sinkError = false;
    if (this.final) this.close(NORMAL_END);
    else this.readNext();
  };

  private readonly onDeliveryFailure = (error: unknown): void => this.close({ kind: "throw", error });

  /** Leaves the loop early, as `for await` does: calls the iterator's `return()` and waits for its answer. */
  private close(end: LoopEnd): void {
    let answer: unknown;
    try {
      const returnMethod = this.iterator!.return;
      if (returnMethod === undefined || returnMethod === null) return this.loopEnded(end);
      answer = returnMethod.call(this.iterator);
    } catch (error) {
      return this.loopEnded(end.kind === "throw" ? end : { kind: "throw", error });
    }
    Promise.resolve(answer).then(
      (closed) =>
        this.loopEnded(
          end.kind === "throw" || isObject(closed)
            ? end
            : { kind: "throw", error: new TypeError("The response's return() result is not an object") },
        ),
      (error: unknown) => this.loopEnded(end.kind === "throw" ? end : { kind: "throw", error }),
    );
  }

  /** After the loop: a sink failure fails the run; a stream failure or a stream without a final message ends the response. */
  private loopEnded(end: LoopEnd): void {
    if (end.kind === "throw") {
      if (this.sinkError) {
        // The run fails now; the request must not go on writing into the partial it is built from.
        this.run.abortWatch.abortRequest();
        if (this.endable) this.run.abortWatch.stopWatchingResponse();
        return this.reject(end.error);
      }
      this.streamError = end.error;
    }
    try {
      if (this.endable) this.run.abortWatch.stopWatchingResponse();
      if (!this.final && !this.streamError && !this.run.aborted) {
        // A stream may end without a terminal event yet still have settled its
        // result (pi's EventStream.end(message)); take it, but never wait for one.
        settledResult(this.response).then((settled) => {
          this.final = settled;
          this.finish();
        });
        return;
      }
    } catch (error) {
      return this.reject(error);
    }
    this.finish();
  }

  /** Records the final message in place of the partial and announces it. */
  private finish(): void {
    const { run, partial } = this;
    let final = this.final;
    try {
      if (final) {
        // A failure may be handed over while the request is still writing into
        // the partial it shares blocks or usage with (pi-ai's providers stream
        // into one object; a wrapper that gave up on a stalled provider builds
        // its failure from that object): deliver what it holds now. A finished
        // response (`done`) is the provider's last word and is delivered as given.
        if (partial && (final.stopReason === "error" || final.stopReason === "aborted")) final = snapshotMessage(final);
      } else {
        // The loop gives up on this stream: stop the request, then keep what had streamed.
        run.abortWatch.abortRequest();
        const reason = this.streamError ?? new Error("The model stream ended without a final message");
        final = failedAssistantMessage(run.config.model, reason, run.aborted, partial);
      }
      this.final = final;
      if (this.placedAt >= 0) {
        run.context.messages[this.placedAt] = final;
        return this.announceEnd();
      }
      run.context.messages.push(final);
      Promise.resolve(run.emit({ type: "message_start", message: final })).then(this.announceEnd, this.reject);
    } catch (error) {
      this.reject(error);
    }
  }

  private readonly announceEnd = (): void => {
    const final = this.final!;
    try {
      this.run.newMessages.push(final);
      const ended = this.run.emit({ type: "message_end", message: final });
      if (ended) Promise.resolve(ended).then(() => this.resolve(final), this.reject);
      else this.resolve(final);
    } catch (error) {
      this.reject(error);
    }
  };
}

const NOT_SETTLED = Symbol("not settled");

/** The stream's `result()` if it has already settled, without waiting for one that has not. */
async function settledResult(response: ResponseStream): Promise<AssistantMessage | undefined> {
  if (typeof response.result !== "function") return undefined;
  try {
    const result = await Promise.race([response.result(), Promise.resolve(NOT_SETTLED)]);
    return result === NOT_SETTLED || result?.role !== "assistant" ? undefined : result;
  } catch {
    return undefined;
  }
}
