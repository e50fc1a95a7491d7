import { loopRequestAbortOf, type LoopRequestAbort } from "@turnkit/agent-loop";
import type { AssistantMessageEventStream, Context } from "@mariozechner/pi-ai";
import { invokeStreamFn, type AnyModel, type StreamFn, type StreamFnOptions } from "./stream-fn.js";

/**
 * What the attempts of a request follow: the caller's signal, or, when the
 * agent loop sent the request to a stream function that follows the loop's
 * request abort (`followLoopRequestAbort`), that abort, which fires exactly
 * when the loop's request signal would.
 */
export type RequestCaller = AbortSignal | LoopRequestAbort;

/** The caller the request sent with `options` follows (see {@link RequestCaller}); `undefined` without a signal. */
export function requestCallerOf(options: StreamFnOptions | undefined): RequestCaller | undefined {
  return loopRequestAbortOf(options) ?? options?.signal;
}

/** An AbortSignal that fires with `caller`, for code that needs one (the loop's request signal is made at the first such call). */
export function callerSignalOf(caller: RequestCaller | undefined): AbortSignal | undefined {
  return caller === undefined || isAbortSignalLike(caller) ? caller : caller.signal();
}

/** The loop's request abort has `watch`; anything else is an AbortSignal (possibly another realm's or a polyfill). */
function isAbortSignalLike(caller: RequestCaller): caller is AbortSignal {
  return typeof (caller as Partial<LoopRequestAbort>).watch !== "function";
}

/**
 * Told, in place of an abort listener on the attempt's signal, that the
 * caller's signal fired: before the attempt's signal is aborted, so it acts
 * before any listener the provider added to that signal.
 */
export interface CallerAbortObserver {
  handleEvent(): void;
}

/**
 * The signal one attempt of a request is sent with: it fires when the
 * caller's signal does (with the caller's reason), or on {@link abort} (a
 * timed-out or given-up attempt), which never aborts the caller's signal.
 * It is its own listener on the caller's signal (or the watcher of the
 * loop's request abort) while an attempt uses it; {@link release} removes
 * it when the attempt ends. A link whose signal never fired may serve a
 * later attempt with the same caller ({@link AttemptSignalLinks}), as pi
 * sends every request of a run with the one run signal: a signal costs
 * more than the request's own work around it.
 *
 * The layer directly below may take the link over while the attempt is
 * being sent ({@link invokeOffering}, {@link takeOfferedAttemptSignal}) and be told of the caller's abort by it
 * ({@link watch}) instead of adding a listener to the attempt's signal: the
 * first listener on a new AbortSignal costs more than the signal itself.
 */
export class AttemptSignalLink {
  private readonly controller = new AbortController();
  private observer: CallerAbortObserver | undefined;

  /** The caller this link follows. */
  constructor(readonly parent: RequestCaller | undefined) {
    this.link();
  }

  /** Follows the caller: at once when it has fired, otherwise as its listener (or watcher). */
  private link(): void {
    const { parent } = this;
    if (parent === undefined) return;
    if (parent.aborted) this.controller.abort(parent.reason);
    else if (isAbortSignalLike(parent)) parent.addEventListener("abort", this, ONCE);
    else parent.watch(this);
  }

  /** The signal to send the attempt with. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * Aborts {@link signal} only, never the caller's; a no-op once it fired.
   * When the caller's signal has already fired, its reason wins, as it came
   * first (the observer runs before the link aborts, see {@link handleEvent}).
   */
  abort(reason?: unknown): void {
    const { parent } = this;
    this.controller.abort(parent?.aborted ? parent.reason : reason);
  }

  /** Tells `observer` when the caller fires, until {@link release}. */
  watch(observer: CallerAbortObserver): void {
    this.observer = observer;
  }

  /** Serves a new attempt after {@link release}: follows the caller again (see {@link AttemptSignalLinks}). */
  relink(): void {
    this.link();
  }

  /** The attempt ended: detaches from the caller and forgets the observer. Idempotent; the signal stays as it is. */
  release(): void {
    const { parent } = this;
    if (parent !== undefined && isAbortSignalLike(parent)) parent.removeEventListener("abort", this);
    else parent?.unwatch(this);
    this.observer = undefined;
  }

  /** The caller fired (this object is its listener or watcher): the observer first, then the signal. */
  handleEvent(): void {
    this.observer?.handleEvent();
    this.controller.abort(this.parent?.reason);
  }
}

/**
 * The attempt signals of one request family (one retry layer): a fresh
 * link per attempt, except that the link of the last attempt that ended
 * with its signal unfired (its request finished) serves the next attempt
 * with the same caller. A link whose signal fired (a timed-out,
 * given-up or aborted attempt) is never handed out again, so such an abort
 * reaches only its own attempt; a kept link listens on nothing until it is
 * handed out, so nothing stays on the caller between requests.
 */
export class AttemptSignalLinks {
  private spare: AttemptSignalLink | undefined;

  /** A link for an attempt sent on behalf of `parent`, the caller. */
  take(parent: RequestCaller | undefined): AttemptSignalLink {
    const spare = this.spare;
    if (spare === undefined || spare.parent !== parent) return new AttemptSignalLink(parent);
    this.spare = undefined;
    spare.relink();
    return spare;
  }

  /** The attempt of `link` ended and {@link AttemptSignalLink.release}d it: keeps it for the next attempt unless its signal fired. */
  keep(link: AttemptSignalLink): void {
    if (!link.signal.aborted) this.spare = link;
  }
}

/** Listener options of a one-shot abort listener, shared by every attempt. */
export const ONCE: AddEventListenerOptions = Object.freeze({ once: true });

/**
 * The link offered to the layer directly below while the call that sends
 * its attempt runs ({@link invokeOffering}): a slot set around that
 * synchronous call, instead of a map from signals, whose entries cost about
 * as much as the listener they save.
 */
let offeredLink: AttemptSignalLink | undefined;

/**
 * Sends an attempt through `streamFn` (guarded by `invokeStreamFn`) with
 * `link` offered, during that call, to the layer directly below
 * ({@link takeOfferedAttemptSignal}): a layer reached synchronously may take
 * it over. Whatever was offered before is offered again once the call
 * returns, so such calls may nest (a host's stream function with a retry
 * layer of its own).
 */
export function invokeOffering(
  link: AttemptSignalLink,
  streamFn: StreamFn,
  model: AnyModel,
  context: Context,
  options: StreamFnOptions,
): AssistantMessageEventStream {
  const outer = offeredLink;
  offeredLink = link;
  try {
    return invokeStreamFn(streamFn, model, context, options);
  } finally {
    offeredLink = outer;
  }
}

/**
 * The link behind `signal` when the layer above made it for this one
 * attempt and offers it in the call running now ({@link invokeOffering});
 * taken at most once. `undefined` otherwise: the layer then links a
 * controller of its own.
 */
export function takeOfferedAttemptSignal(signal: AbortSignal | undefined): AttemptSignalLink | undefined {
  const link = offeredLink;
  if (link === undefined || signal === undefined || link.signal !== signal) return undefined;
  offeredLink = undefined;
  return link;
}
