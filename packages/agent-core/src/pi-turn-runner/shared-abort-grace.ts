import { ABANDONED, ABORT_GRACE_MS } from "@turnkit/agent-loop/internal";

/**
 * One abort grace for the whole turn. Once the turn is aborted (the
 * caller's signal, or a failure that stops the Agent), every hook, host
 * callback and writer wait of the turn races the same deadline,
 * `ABORT_GRACE_MS` after the abort, instead of getting a fresh grace per
 * call; so hung host code delays the end of a turn by one grace in total,
 * however many events would call it. Uses real time, like the loop's own
 * grace (work that ignores its signal is not on any virtual clock).
 */
export class SharedAbortGrace {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private begunAt: number | undefined;
  private over = false;
  /** Made at the first wait on {@link expired}: most turns never wait on host code. */
  private expiredPromise: Promise<typeof ABANDONED> | undefined;
  private resolveOver: ((value: typeof ABANDONED) => void) | undefined;

  /** Resolves with `ABANDONED` when the grace is over; never before an abort. */
  get expired(): Promise<typeof ABANDONED> {
    this.expiredPromise ??= this.over
      ? Promise.resolve(ABANDONED)
      : new Promise((resolve) => {
          this.resolveOver = resolve;
        });
    return this.expiredPromise;
  }

  /** Starts the grace; later calls keep the first deadline, and once it ended (the turn settled) nothing starts. */
  begin(): void {
    if (this.begunAt !== undefined || this.over) return;
    this.begunAt = Date.now();
    this.timer = setTimeout(() => this.end(), ABORT_GRACE_MS);
    this.timer.unref?.();
  }

  /** Whether the turn was aborted. */
  get begun(): boolean {
    return this.begunAt !== undefined;
  }

  /** Whether the grace is over: from now on only answers ready at once are taken. */
  get isOver(): boolean {
    return this.over;
  }

  /** Milliseconds left of the grace: the full grace before an abort, 0 once it is over. */
  remainingMs(): number {
    if (this.begunAt === undefined) return ABORT_GRACE_MS;
    return Math.max(0, this.begunAt + ABORT_GRACE_MS - Date.now());
  }

  /** Ends the grace now (the turn settled) and releases the timer. */
  end(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.over = true;
    this.resolveOver?.(ABANDONED);
  }
}
