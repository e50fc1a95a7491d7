import type { SimpleStreamOptions } from "@mariozechner/pi-ai";
import type { StreamFn } from "./types.js";

/** Told, in place of an abort listener on the loop's request signal, that the loop's request must stop. */
export interface LoopRequestAbortObserver {
  handleEvent(): void;
}

/**
 * When the loop's model requests of one run must stop: the run's signal
 * fired, or the loop gave up on the request it was reading (a failing event
 * sink, a stream that broke off). It fires exactly when the request signal
 * the loop hands a stream function would fire, with that signal's reason:
 * a stream function that follows it (see {@link followLoopRequestAbort})
 * needs no signal of the loop's own, so a request costs no AbortSignal and
 * no listener between the loop and the layer that sends it.
 */
export interface LoopRequestAbort {
  /** True once the requests must stop. */
  readonly aborted: boolean;
  /** Why: the run's signal's reason, or an `AbortError` when the loop gave up; `undefined` before. */
  readonly reason: unknown;
  /**
   * Tells `observer` once when the requests must stop, unless
   * {@link unwatch} comes first. Observers are told in the order they came,
   * each at the point where a listener on the request signal added at the
   * same moment would be told. Nothing is told after the abort: check
   * {@link aborted} first.
   */
  watch(observer: LoopRequestAbortObserver): void;
  /** Stops telling `observer`; a no-op for one not watching. */
  unwatch(observer: LoopRequestAbortObserver): void;
  /**
   * The request signal itself, made at the first call (already aborted,
   * with {@link reason}, when the requests had to stop), for code that
   * needs an AbortSignal. One per run.
   */
  signal(): AbortSignal;
}

/**
 * The loop's requests of one run must stop ({@link abort}): observers that
 * came before the request signal existed are told first, in order, then
 * the signal (when someone asked for it) fires, which tells its listeners.
 * An observer that comes once the signal exists becomes its listener, so
 * everyone is told in the order they came, as with listeners on a signal
 * made at the first request.
 */
export class RequestAbort implements LoopRequestAbort {
  aborted = false;
  reason: unknown = undefined;
  private controller: AbortController | undefined;
  private observers: LoopRequestAbortObserver[] | undefined;

  watch(observer: LoopRequestAbortObserver): void {
    if (this.aborted) return;
    if (this.controller) this.controller.signal.addEventListener("abort", observer, ONCE);
    else (this.observers ??= []).push(observer);
  }

  unwatch(observer: LoopRequestAbortObserver): void {
    this.controller?.signal.removeEventListener("abort", observer);
    const observers = this.observers;
    if (observers === undefined) return;
    const index = observers.indexOf(observer);
    if (index >= 0) observers.splice(index, 1);
  }

  signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** The requests must stop, for `reason`; a no-op once they had to. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const observers = this.observers;
    // An observer that stops watching while an earlier one is told is not told, as with listeners.
    while (observers !== undefined && observers.length > 0) observers.shift()!.handleEvent();
    this.observers = undefined;
    this.controller?.abort(reason);
  }

  /** The loop gave up on its request: the reason is the `AbortError` an `AbortController.abort()` without one gives. */
  giveUp(): void {
    if (!this.aborted) this.abort(new DOMException("This operation was aborted", "AbortError"));
  }
}

const ONCE: AddEventListenerOptions = Object.freeze({ once: true });

/** Marks a stream function declared with {@link followLoopRequestAbort}. */
const FOLLOWS = Symbol("turnkit.followsLoopRequestAbort");

type MarkedStreamFn = StreamFn & { [FOLLOWS]?: true };

/**
 * The request the loop is sending to a stream function that follows its
 * request abort, while that call runs ({@link callWithLoopRequestAbort}):
 * a slot set around the synchronous call, instead of a map from every
 * request's options, whose entries cost more than the signal they replace.
 */
let offeredOptions: object | undefined;
let offeredAbort: LoopRequestAbort | undefined;

/**
 * Declares that `streamFn` follows the loop's request abort itself, and
 * returns it (marked with a symbol-keyed property, so it must be
 * extensible). The loop then calls it with the run's own signal as
 * `options.signal` (none when the run has none) instead of a request signal
 * of its own, and `streamFn`, during that call, must find the request
 * abort with {@link loopRequestAbortOf} on those very options (or hand
 * them unchanged, in the same call, to a layer that does) and stop every
 * request it sends when it fires. The abort is offered only while the call
 * runs: a layer that sends the request again later (a resend) offers it
 * again with {@link callWithLoopRequestAbort}. Only the run's signal
 * reaches code that reads `options.signal`, so a layer that needs the
 * request signal itself asks {@link LoopRequestAbort.signal}. A stream
 * function not declared so gets the request signal as before.
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
 * `options`: while the call runs, {@link loopRequestAbortOf} answers it for
 * those options. Whatever was offered before is offered again once the
 * call returns or throws, so such calls may nest. Returns what `send`
 * returns; rethrows what it throws.
 */
export function callWithLoopRequestAbort<M, C, O extends object, R>(
  send: (model: M, context: C, options: O) => R,
  model: M,
  context: C,
  options: O,
  requestAbort: LoopRequestAbort,
): R {
  const outerOptions = offeredOptions;
  const outerAbort = offeredAbort;
  offeredOptions = options;
  offeredAbort = requestAbort;
  try {
    return send(model, context, options);
  } finally {
    offeredOptions = outerOptions;
    offeredAbort = outerAbort;
  }
}

/**
 * The loop's request abort of the request sent with `options`, when the
 * loop is sending it to a stream function declared with
 * {@link followLoopRequestAbort} (or a layer resends it with
 * {@link callWithLoopRequestAbort}) and that call is running; `undefined`
 * otherwise (then `options.signal` is the request's signal, as always).
 */
export function loopRequestAbortOf(options: SimpleStreamOptions | undefined): LoopRequestAbort | undefined {
  return options !== undefined && options === offeredOptions ? offeredAbort : undefined;
}
