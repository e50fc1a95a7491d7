/**
 * The abort of a run's model requests: the signal the loop hands every
 * stream function of the run as `options.signal`. It fires when the run's
 * signal fires (with the run's reason), and when the loop gives up on a
 * request ({@link giveUp}: a failing event sink, a stream that broke off;
 * the run ends then), with an `AbortError`, so no request outlives the step
 * that stopped reading it. The loop never fires the run's own signal. The
 * run releases it at `agent_end`: nothing of the run listens on the run's
 * signal afterwards.
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

  /** The loop stopped reading a request: abort it (a no-op once aborted). */
  giveUp(): void {
    this.controller.abort();
  }

  /** The run ended: its requests no longer follow the run's signal. */
  release(): void {
    this.runSignal?.removeEventListener("abort", this.followRun);
  }

  private readonly followRun = (): void => this.controller.abort(this.runSignal!.reason);
}
