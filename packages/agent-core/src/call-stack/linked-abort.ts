/**
 * An `AbortController` for one request (or one attempt of it) sent on
 * behalf of a caller: it aborts when the caller's signal does, with the
 * caller's reason, and it can be aborted on its own (a timed-out or
 * given-up attempt) without ever aborting the caller. {@link release}
 * removes its listener from the caller once the request has ended, so the
 * caller's signal keeps nothing of finished requests.
 */
export class LinkedAbortController extends AbortController {
  private readonly follow = () => this.abort(this.parent?.reason);

  /** Follows `parent` (none: a controller that only aborts on its own). */
  constructor(private readonly parent: AbortSignal | undefined) {
    super();
    if (parent?.aborted) this.abort(parent.reason);
    else parent?.addEventListener("abort", this.follow, { once: true });
  }

  /** Aborts this controller only; when the caller has fired already, its reason wins, as it came first. */
  override abort(reason?: unknown): void {
    super.abort(this.parent?.aborted ? this.parent.reason : reason);
  }

  /** The request ended: stops following the caller. Idempotent; the signal stays as it is. */
  release(): void {
    this.parent?.removeEventListener("abort", this.follow);
  }
}
