/**
 * The abort of a durable turn as its records know it, and when the runner
 * hears of it.
 *
 * The runner gives host code a grace once its signal fires (hooks, tool
 * calls, listeners still pending are given up on after it). A durable step
 * given up on that way still finishes and writes its record, while a replay
 * gets the record at once and is not given up on: the two executions would
 * take different paths and log different events. So the runner's signal
 * fires only when no durable seam call is pending: an abort is first
 * {@link record}ed (by the step whose record says the turn was aborted),
 * and fires once the last seam call pending at that moment has returned.
 * From the recording on, seams answer at once, without a step (every
 * execution records the abort at the same step, so every execution answers
 * the same seams that way). Nothing is then pending when the grace starts,
 * and nothing is ever given up on.
 *
 * The runner also starts its grace when a failure stops the turn (a host
 * history hook that throws): {@link stopSeams} makes the seams answer at
 * once from there on too, without firing the signal.
 */
export class TurnAbort {
  private readonly controller = new AbortController();
  private pending = 0;
  private abortRecorded = false;
  private seamsStopped = false;

  /** The runner's signal: fires once the abort is recorded and no seam call is pending. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** True once the abort is recorded or the turn is stopping: seams answer at once, without a step. */
  get stopped(): boolean {
    return this.seamsStopped;
  }

  /** Records the abort; the runner's signal fires now, or when the seam calls pending now have returned. */
  record(): void {
    this.abortRecorded = true;
    this.seamsStopped = true;
    this.fireWhenIdle();
  }

  /** The runner is stopping the turn after a failure a step's record holds: seams answer at once from now on. */
  stopSeams(): void {
    this.seamsStopped = true;
  }

  /**
   * Runs one seam call (a step, or an approval wait) as pending: a recorded
   * abort reaches the runner only after it returned. Counted from the call
   * on, so calls the runner starts together (parallel tools) all count
   * before any of them ends.
   */
  async around<T>(work: () => Promise<T>): Promise<T> {
    this.pending++;
    try {
      return await work();
    } finally {
      this.pending--;
      this.fireWhenIdle();
    }
  }

  private fireWhenIdle(): void {
    if (this.abortRecorded && this.pending === 0 && !this.controller.signal.aborted) this.controller.abort();
  }
}
