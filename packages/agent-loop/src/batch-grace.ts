import { ABANDONED } from "./abort-grace.js";
import { ABORT_GRACE_MS } from "./defaults.js";

/** Told when a tool batch's abort grace ran out. */
export interface GraceOutListener {
  graceRanOut(): void;
}

/**
 * One tool batch's abort grace: armed when the run's signal fires, it runs
 * out `ABORT_GRACE_MS` later, unless the batch ended first ({@link clear}).
 * What it tells ({@link promise}, {@link onRunOut}) is told exactly as
 * reactions to one promise resolved with {@link ABANDONED} when it runs out
 * would be, in the order they came, one microtask after the timer. That
 * promise is made only when a wait races with it (a hook that has not
 * answered): most batches end without one, and a promise with its
 * resolving functions and a reaction per batch is live heap for as long as
 * the tools run.
 */
export class BatchGrace {
  private made: Promise<typeof ABANDONED> | undefined;
  private resolve: ((value: typeof ABANDONED) => void) | undefined;
  /** Told when the grace runs out; registered before {@link promise} was made, so it reacts first. */
  private listener: GraceOutListener | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private ranOut = false;

  /** Resolves with {@link ABANDONED} when the grace runs out; never, once it was cleared first. */
  get promise(): Promise<typeof ABANDONED> {
    if (this.made === undefined) {
      this.made = this.ranOut ? Promise.resolve(ABANDONED) : new Promise((resolve) => (this.resolve = resolve));
      const listener = this.listener;
      this.listener = undefined;
      if (listener) void this.made.then(() => listener.graceRanOut());
    }
    return this.made;
  }

  /** Tells `listener`, one microtask after the grace ran out, as a reaction to {@link promise} added now would be. */
  onRunOut(listener: GraceOutListener): void {
    if (this.made !== undefined || this.ranOut || this.listener !== undefined)
      void this.promise.then(() => listener.graceRanOut());
    else this.listener = listener;
  }

  /** Starts the grace: it runs out `ABORT_GRACE_MS` from now. */
  arm(): void {
    this.timer = setTimeout(() => this.runOut(), ABORT_GRACE_MS);
    this.timer.unref?.();
  }

  /** Stops the timer, if armed; the grace then never runs out. */
  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
  }

  private runOut(): void {
    this.ranOut = true;
    if (this.resolve) this.resolve(ABANDONED);
    else if (this.listener) void this.promise;
  }
}
