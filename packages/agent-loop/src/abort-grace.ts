import { ABORT_GRACE_MS } from "./defaults.js";
import { onAbort } from "./shared-abort-listener.js";

/** What a wait raced with an {@link AbortGrace} gives when the grace ran out first: the work was given up on. */
export const ABANDONED: unique symbol = Symbol("turnkit.abandoned");

/**
 * The one bound on how long an abort may take. Parts that honour the run's
 * signal settle long before it; a stream, tool, hook or listener that
 * ignores the signal is waited for until the grace runs out, then given up
 * on, so an abort always ends a run.
 *
 * A grace runs out `graceMs` (default `ABORT_GRACE_MS`) after `signal`
 * fired, or after the grace was made when the signal had fired already;
 * one made without a signal runs out `graceMs` after {@link begin} (a run
 * has one grace, begun by its own abort listener). Once {@link end} was
 * called it never runs out. Call {@link end} when the waits it bounds are
 * over: it clears the timer and the grace's abort listener.
 */
export class AbortGrace {
  private ranOutPromise: Promise<typeof ABANDONED> | undefined;
  private resolve: ((value: typeof ABANDONED) => void) | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private ended = false;
  private hasRunOut = false;
  /** Called when the grace runs out (see {@link whenRunOut}). */
  private waiter: (() => void) | undefined;
  /** Stops listening on `signal` (through its one shared listener). */
  private readonly stopListening: (() => void) | undefined;

  constructor(
    signal?: AbortSignal,
    private readonly graceMs: number = ABORT_GRACE_MS,
  ) {
    if (signal?.aborted) this.begin();
    else if (signal) this.stopListening = onAbort(signal, () => this.begin());
  }

  /** Resolves with {@link ABANDONED} when the grace runs out; never, when it ended first. */
  get ranOut(): Promise<typeof ABANDONED> {
    this.ranOutPromise ??= this.hasRunOut
      ? Promise.resolve(ABANDONED)
      : new Promise((resolve) => (this.resolve = resolve));
    return this.ranOutPromise;
  }

  /**
   * Calls `waiter` when the grace runs out (at once when it has), unless
   * {@link stopWaiting} came first: the part of the run that waits now (the
   * response being read, then a tool batch: one at a time, as the loop runs
   * them), which the run's grace must not hold once that part is over.
   */
  whenRunOut(waiter: () => void): void {
    if (this.hasRunOut) waiter();
    else this.waiter = waiter;
  }

  /** `waiter` no longer waits for the grace. */
  stopWaiting(waiter: () => void): void {
    if (this.waiter === waiter) this.waiter = undefined;
  }

  /** The waits are over: the grace never runs out from now on. */
  end(): void {
    this.ended = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.stopListening?.();
  }

  /** Starts the grace now (made without a signal: its owner tells it the abort); later calls keep the first start. */
  begin(): void {
    if (this.ended || this.timer !== undefined) return;
    this.timer = setTimeout(() => this.runOut(), this.graceMs);
    this.timer.unref?.();
  }

  private runOut(): void {
    this.hasRunOut = true;
    this.resolve?.(ABANDONED);
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }
}

/**
 * Waits for `work`, but once `signal` has fired at most until an
 * {@link AbortGrace} made now runs out (`graceMs`, default
 * `ABORT_GRACE_MS`), then gives up with {@link ABANDONED}. The grace is
 * ended before returning; a rejection of abandoned work is handled (never
 * unhandled).
 */
export async function settleOrAbandon<T>(
  work: PromiseLike<T>,
  signal: AbortSignal | undefined,
  graceMs: number = ABORT_GRACE_MS,
): Promise<T | typeof ABANDONED> {
  if (!signal) return work;
  const grace = new AbortGrace(signal, graceMs);
  try {
    return await Promise.race([work, grace.ranOut]);
  } finally {
    grace.end();
  }
}
