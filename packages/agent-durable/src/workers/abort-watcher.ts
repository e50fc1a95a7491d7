import { ABORT_POLL_MS } from "../defaults.js";
import type { TurnTable } from "../store/turn-table.js";
import type { TurnContext } from "../turn/turn-context.js";

/**
 * Looks for abort requests of the turns this process runs (one query for
 * all of them, every {@link ABORT_POLL_MS}) and fires their live abort, which
 * ends the model request or tool call running at that moment. The step
 * records the abort, so the turn's outcome is `aborted` on every replay.
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
      const contexts = [...this.running].filter((ctx) => !ctx.liveAbort.signal.aborted);
      const aborted = new Set(await this.turnTable.abortRequested(contexts.map((ctx) => ctx.ref.workflowId)));
      for (const ctx of contexts) if (aborted.has(ctx.ref.workflowId)) ctx.liveAbort.abort();
    } catch {
      // A failed look is retried at the next tick; the next step checks the flag itself anyway.
    } finally {
      this.checking = false;
    }
  }
}
