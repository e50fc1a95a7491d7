import { ABORT_POLL_MS } from "../defaults.js";
import type { TurnTable } from "../store/turn-table.js";
import type { TurnContext } from "../turn/turn-context.js";

/**
 * Looks, for the turns this process runs (one query each for all of them,
 * every {@link ABORT_POLL_MS}), for abort requests, and fires their live
 * abort, which ends the model request or tool call running at that moment;
 * the step records the abort, so the turn's outcome is `aborted` on every
 * replay. It also looks whether another worker took a turn over (this
 * worker stalled past its lease): such a turn's claim is revoked, which
 * stops its running step at once, even one that writes nothing.
 */
export class AbortWatcher {
  private timer: ReturnType<typeof setInterval> | undefined;
  private checking = false;

  constructor(
    private readonly turnTable: TurnTable,
    private readonly running: ReadonlySet<TurnContext>,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.check(), ABORT_POLL_MS);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async check(): Promise<void> {
    if (this.checking || this.running.size === 0) return;
    this.checking = true;
    try {
      const contexts = [...this.running].filter((ctx) => !ctx.claim.revoked.aborted);
      await this.turnTable.revokeLostClaims(contexts.map((ctx) => ctx.claim));
      const live = contexts.filter((ctx) => !ctx.liveAbort.signal.aborted && !ctx.claim.revoked.aborted);
      const aborted = new Set(await this.turnTable.abortRequested(live.map((ctx) => ctx.ref.workflowId)));
      for (const ctx of live) if (aborted.has(ctx.ref.workflowId)) ctx.liveAbort.abort();
    } catch {
      // A failed look is retried at the next tick; the next step checks the flag and the claim itself anyway.
    } finally {
      this.checking = false;
    }
  }
}
