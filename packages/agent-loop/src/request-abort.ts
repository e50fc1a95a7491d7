import type { SimpleStreamOptions } from "@mariozechner/pi-ai";
import type { StreamFn } from "./types.js";

/**
 * A model request's abort: the signal the loop hands the stream function as
 * `options.signal`. It fires when the run's signal fires (with the run's
 * reason) while the loop reads the request's response, and when the loop
 * gives up on the request ({@link giveUp}: a failing event sink, a stream
 * that broke off), with an `AbortError`, so no request outlives the step
 * that stopped reading it. The loop never fires the run's own signal.
 */
export class RequestAbort {
  private readonly controller = new AbortController();

  constructor(private readonly runSignal: AbortSignal | undefined) {
    if (runSignal?.aborted) this.controller.abort(runSignal.reason);
    else runSignal?.addEventListener("abort", this.followRun, { once: true });
  }

  /** The request's signal. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The loop stopped reading the request: abort it (a no-op once aborted). */
  giveUp(): void {
    this.controller.abort();
  }

  /** The response was read: the request no longer follows the run's signal. */
  release(): void {
    this.runSignal?.removeEventListener("abort", this.followRun);
  }

  private readonly followRun = (): void => this.controller.abort(this.runSignal!.reason);
}

/** Told, in place of an abort listener on the loop's request signal, that the loop's request must stop. */
export interface LoopRequestAbortObserver {
  handleEvent(): void;
}

/**
 * The request abort as a stream function declared with
 * {@link followLoopRequestAbort} finds it with {@link loopRequestAbortOf}.
 */
export interface LoopRequestAbort {
  /** True once the request must stop. */
  readonly aborted: boolean;
  /** Why: the run's signal's reason, or an `AbortError` when the loop gave up; `undefined` before. */
  readonly reason: unknown;
  /** Tells `observer` once when the request must stop, as an abort listener on {@link signal} added now. */
  watch(observer: LoopRequestAbortObserver): void;
  /** Stops telling `observer`; a no-op for one not watching. */
  unwatch(observer: LoopRequestAbortObserver): void;
  /** The request signal itself. */
  signal(): AbortSignal;
}

/** {@link LoopRequestAbort} over a request's signal. */
function loopRequestAbort(signal: AbortSignal): LoopRequestAbort {
  return {
    get aborted() {
      return signal.aborted;
    },
    get reason() {
      return signal.reason;
    },
    watch: (observer) => {
      if (!signal.aborted) signal.addEventListener("abort", observer, { once: true });
    },
    unwatch: (observer) => signal.removeEventListener("abort", observer),
    signal: () => signal,
  };
}

/** Marks a stream function declared with {@link followLoopRequestAbort}. */
const FOLLOWS = Symbol("turnkit.followsLoopRequestAbort");

type MarkedStreamFn = StreamFn & { [FOLLOWS]?: true };

let offeredOptions: object | undefined;
let offeredAbort: LoopRequestAbort | undefined;

/**
 * Declares that `streamFn` follows the loop's request abort itself, and
 * returns it. The loop then calls it with the run's own signal as
 * `options.signal` and offers the request abort during that call
 * ({@link loopRequestAbortOf}).
 */
export function followLoopRequestAbort<T extends StreamFn>(streamFn: T): T {
  (streamFn as MarkedStreamFn)[FOLLOWS] = true;
  return streamFn;
}

/** True for a stream function declared with {@link followLoopRequestAbort}. */
export function followsLoopRequestAbort(streamFn: StreamFn): boolean {
  return (streamFn as MarkedStreamFn)[FOLLOWS] === true;
}

/**
 * Calls `send(model, context, options)` with `requestAbort` offered for
 * `options` while the call runs. Returns what `send` returns; rethrows
 * what it throws.
 */
export function callWithLoopRequestAbort<M, C, O extends object, R>(
  send: (model: M, context: C, options: O) => R,
  model: M,
  context: C,
  options: O,
  requestAbort: LoopRequestAbort | AbortSignal,
): R {
  const outerOptions = offeredOptions;
  const outerAbort = offeredAbort;
  offeredOptions = options;
  offeredAbort = requestAbort instanceof AbortSignal ? loopRequestAbort(requestAbort) : requestAbort;
  try {
    return send(model, context, options);
  } finally {
    offeredOptions = outerOptions;
    offeredAbort = outerAbort;
  }
}

/** The loop's request abort offered for `options` while such a call runs; `undefined` otherwise. */
export function loopRequestAbortOf(options: SimpleStreamOptions | undefined): LoopRequestAbort | undefined {
  return options !== undefined && options === offeredOptions ? offeredAbort : undefined;
}
