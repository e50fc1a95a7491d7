import { BatchGrace } from "./batch-grace.js";
import { ABORT_GRACE_MS } from "./defaults.js";
import { RequestAbort } from "./request-abort.js";

/** A response stream the loop can end itself (pi-ai's `EventStream.end`). */
export interface EndableResponse {
  end(): void;
}

/**
 * What a loop run does when its signal fires, through one abort listener
 * for the whole run instead of one per request, response and tool batch:
 * it aborts the run's requests ({@link requestAbort}), and starts the abort
 * grace of the response being read and of the tool batch running. The
 * listener is added when the run first needs it (its first request) and
 * removed by {@link release},
 * which the run calls at `agent_end`, so nothing of the run stays on the
 * caller's signal after the run.
 */
export class RunAbortWatch {
  private listening = false;
  /** The run's request abort, created at the first request. */
  private requests: RequestAbort | undefined;
  /** The response being read; ended `ABORT_GRACE_MS` after the abort unless it ended first. */
  private response: EndableResponse | undefined;
  private responseTimer: ReturnType<typeof setTimeout> | undefined;
  /** The grace of the tool batch running, while the signal has not fired. */
  private batchGrace: BatchGrace | undefined;

  constructor(private readonly signal: AbortSignal | undefined) {}

  /**
   * True once the run's signal has fired. While the watch's listener is on
   * the signal and has not run, the signal has not fired: the answer needs
   * no read of the signal (a getter of Node's that the loop would otherwise
   * call about thirty times a turn).
   */
  get aborted(): boolean {
    return !this.listening && this.signal?.aborted === true;
  }

  /**
   * When model requests must stop: when the run's signal fires, and when
   * the loop gives up on a stream ({@link abortRequest}). One per run, so a
   * request costs no controller and no listener of its own; a stream
   * function that does not follow it gets its signal ({@link requestSignal}).
   */
  requestAbort(): RequestAbort {
    if (!this.requests) {
      this.requests = new RequestAbort();
      if (this.signal?.aborted) this.requests.abort(this.signal.reason);
      else this.listen();
    }
    return this.requests;
  }

  /** The signal of {@link requestAbort}: the request signal model requests get. */
  requestSignal(): AbortSignal {
    return this.requestAbort().signal();
  }

  /** Aborts the run's requests without touching the run's own signal. */
  abortRequest(): void {
    this.requests?.giveUp();
  }

  /**
   * Calls `response.end()` `ABORT_GRACE_MS` after the run's signal fired
   * (counting from now when it already has), unless
   * {@link stopWatchingResponse} comes first: a stream that ignores the
   * signal is ended by the loop.
   */
  watchResponse(response: EndableResponse): void {
    if (!this.signal) return;
    this.response = response;
    if (this.signal.aborted) this.armResponseTimer();
    else this.listen();
  }

  /** The response was read to its end: its grace, if armed, is cleared. */
  stopWatchingResponse(): void {
    if (this.responseTimer !== undefined) clearTimeout(this.responseTimer);
    this.responseTimer = undefined;
    this.response = undefined;
  }

  /**
   * The grace of a tool batch: it runs out (see {@link BatchGrace})
   * `ABORT_GRACE_MS` after the run's signal fired, or after now when it
   * already has; `undefined` without a signal. Call {@link endBatchGrace}
   * when the batch ends.
   */
  startBatchGrace(): BatchGrace | undefined {
    if (!this.signal) return undefined;
    const grace = new BatchGrace();
    if (this.signal.aborted) grace.arm();
    else {
      this.batchGrace = grace;
      this.listen();
    }
    return grace;
  }

  /** Clears the grace of the batch that ended (its timer, if armed). */
  endBatchGrace(grace: BatchGrace | undefined): void {
    if (this.batchGrace === grace) this.batchGrace = undefined;
    grace?.clear();
  }

  /** Removes the run's listener from its signal; after `agent_end` nothing of the run listens on it. */
  release(): void {
    if (this.listening) this.signal?.removeEventListener("abort", this.onAbort);
    this.listening = false;
  }

  private listen(): void {
    if (this.listening || !this.signal) return;
    this.listening = true;
    this.signal.addEventListener("abort", this.onAbort, { once: true });
  }

  private readonly onAbort = (): void => {
    this.listening = false;
    this.requests?.abort(this.signal?.reason);
    if (this.response) this.armResponseTimer();
    const grace = this.batchGrace;
    this.batchGrace = undefined;
    grace?.arm();
  };

  private armResponseTimer(): void {
    const response = this.response;
    if (!response || this.responseTimer !== undefined) return;
    this.responseTimer = setTimeout(() => response.end(), ABORT_GRACE_MS);
    this.responseTimer.unref?.();
  }
}
