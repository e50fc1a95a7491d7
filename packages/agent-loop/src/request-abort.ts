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
