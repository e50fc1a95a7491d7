import { ABANDONED, ABORT_GRACE_MS, onAbort } from "@turnkit/agent-loop/internal";

/*
 * The three abort concepts of agent-core, documented here and nowhere else.
 *
 * - The turn's abort: the host's `RunTurnInput.signal`. When it fires, the
 *   runner calls `agent.abort()` (the loop's run signal fires), and the
 *   turn's grace begins. A turn that fails also aborts its Agent.
 * - A request's abort ({@link RequestAbortController}): every model request,
 *   and every attempt of it, is sent with a signal of its own that follows
 *   its caller's signal (the loop's, or the attempt's above) with the
 *   caller's reason, and that a layer can abort alone (a timed-out or
 *   given-up attempt) without ever aborting its caller.
 * - Any number of turns, requests and calls may follow one signal (a host's
 *   shutdown signal): each follows it through the signal's one shared
 *   listener (`onAbort`), which leaves the signal with the last of them.
 * - The grace ({@link AbortGrace}): once a turn is aborted, everything that
 *   still waits on host code (hooks, host callbacks, the event writer)
 *   races one deadline, `ABORT_GRACE_MS` after the abort; past it the wait
 *   is given up (`ABANDONED`). One grace per turn, however many waits.
 */

/**
 * A request's abort: aborts when `parent` (the caller's signal) does, with
 * the caller's reason, and on {@link abort}, which never aborts the caller.
 * {@link release} stops following the caller once the request has ended,
 * so the caller's signal keeps nothing of finished requests.
 */
export class RequestAbortController extends AbortController {
  private readonly parent: AbortSignal | undefined;
  /** Stops following the caller (its signal's one shared listener, so many requests may follow one signal). */
  private readonly stopFollowing: () => void;

  /** Follows `parent` (none: a controller that aborts only on its own); `onParentAbort` is told when it follows, after it aborted. */
  constructor(
    parent: AbortSignal | undefined,
    private readonly onParentAbort?: () => void,
  ) {
    super();
    this.parent = parent;
    if (parent?.aborted) super.abort(parent.reason);
    this.stopFollowing = parent
      ? onAbort(parent, () => {
          this.abort();
          this.onParentAbort?.();
        })
      : () => {};
  }

  /** Aborts this request only; when the caller has fired already, its reason wins, as it came first. */
  override abort(reason?: unknown): void {
    super.abort(this.parent?.aborted ? this.parent.reason : reason);
  }

  /** The request ended: stops following the caller. Idempotent; the signal stays as it is. */
  release(): void {
    this.stopFollowing();
  }
}

/**
 * The turn's one grace. Once the turn is aborted ({@link begin}), every wait
 * on host code is a {@link race} that gives up `ABORT_GRACE_MS` after the
 * abort; so hung host code delays the end of a turn by one grace in total.
 * Uses real time, like the loop's own grace (work that ignores its signal is
 * not on any virtual clock).
 */
export class AbortGrace {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private begunAt: number | undefined;
  private over = false;
  /** The races still waiting, each given up on when the grace is over (made at the first race). */
  private pendingRaces: Set<() => void> | undefined;

  /**
   * `work`'s outcome, or `ABANDONED` once the grace is over first (at once
   * when it is over already and `work` has not settled). A race that
   * settled leaves nothing behind on the grace: a long turn's many host
   * calls do not pile up until it ends.
   */
  race<T>(work: Promise<T>): Promise<T | typeof ABANDONED> {
    if (this.over) return Promise.race([work, Promise.resolve(ABANDONED)]);
    return new Promise((resolve, reject) => {
      const giveUp = () => resolve(ABANDONED);
      const pending = (this.pendingRaces ??= new Set());
      pending.add(giveUp);
      work.then(
        (value) => {
          pending.delete(giveUp);
          resolve(value);
        },
        (error: unknown) => {
          pending.delete(giveUp);
          reject(error);
        },
      );
    });
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

  /** Ends the grace now (the turn settled) and releases the timer: every race still waiting gives up. */
  end(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.over = true;
    const pending = this.pendingRaces;
    this.pendingRaces = undefined;
    for (const giveUp of pending ?? []) giveUp();
  }
}
