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

/** Stream functions that follow the loop's request abort themselves. */
const followers = new WeakSet<StreamFn>();

/** The request abort behind each request the loop sent to such a stream function, by the request's options. */
const offered = new WeakMap<object, LoopRequestAbort>();

/**
 * Declares that `streamFn` follows the loop's request abort itself, and
 * returns it. The loop then calls it with the run's own signal as
 * `options.signal` (none when the run has none) instead of a request signal
 * of its own, and `streamFn` must find the request abort with
 * {@link loopRequestAbortOf} on those very options (or hand them unchanged
 * to a layer that does) and stop every request it sends when it fires.
 * Only the run's signal reaches code that reads `options.signal`, so a
 * layer that needs the request signal itself asks
 * {@link LoopRequestAbort.signal}. A stream function not declared so gets
 * the request signal as before.
 */
export function followLoopRequestAbort<T extends StreamFn>(streamFn: T): T {
  followers.add(streamFn);
  return streamFn;
}

/** True for a stream function declared with {@link followLoopRequestAbort}. */
export function followsLoopRequestAbort(streamFn: StreamFn): boolean {
  return followers.has(streamFn);
}

/** Records that the request sent with `options` follows `requestAbort`. */
export function offerLoopRequestAbort(options: object, requestAbort: LoopRequestAbort): void {
  offered.set(options, requestAbort);
}

/**
 * The loop's request abort of the request sent with `options`, when the
 * loop sent it to a stream function declared with
 * {@link followLoopRequestAbort}; `undefined` otherwise (then
 * `options.signal` is the request's signal, as always). Asking does not
 * consume it: a layer that sends the request again with the same options
 * finds it again.
 */
export function loopRequestAbortOf(options: SimpleStreamOptions | undefined): LoopRequestAbort | undefined {
  return options === undefined ? undefined : offered.get(options);
}
