/**
 * The abort of a run's model requests: the signal the loop hands every
 * stream function of the run as `options.signal`. It fires when the run's
 * signal fires ({@link follow}, with the run's reason), and when the loop
 * gives up on a request ({@link giveUp}: a failing event sink, a stream that
 * broke off; the run ends then), with an `AbortError`, so no request
 * outlives the step that stopped reading it. The loop never fires the run's
 * own signal; the run listens on it once (see `LoopRun`) and stops at
 * `agent_end`.
 */
export class RequestAbort {
  private readonly controller = new AbortController();

  /** The request's signal. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The run's signal fired: the requests abort with its reason (a no-op once aborted). */
  follow(reason: unknown): void {
    this.controller.abort(reason);
  }

  /** The loop stopped reading a request: abort it (a no-op once aborted). */
  giveUp(): void {
    this.controller.abort();
  }
}
