import { CANCELLED_SWEEP_MS } from "../defaults.js";
import type { CancelledTurns } from "../store/cancelled-turn.js";

/** How far back each look reaches before the previous one began: a margin for clocks that differ. */
const CLOCK_MARGIN_MS = 60_000;

/**
 * Ends the turns cancelled with DBOS's tools (see `closeCancelledTurn`),
 * so their logs end as an abort's would without anyone asking: every
 * {@link CANCELLED_SWEEP_MS} it looks for turns cancelled since its previous
 * look (its first look, at launch, for every one). A failed look is tried
 * again at the next tick. Clients end such a turn themselves when they
 * follow it, ask for its status or its outcome, and a turn of the same
 * session ends it before it starts, so none depends on a live worker.
 */
export class CancelledTurnSweep {
  private timer: ReturnType<typeof setInterval> | undefined;
  private sweeping = false;
  private sinceMs = 0;

  constructor(private readonly cancelledTurns: CancelledTurns) {}

  start(): void {
    this.timer ??= setInterval(() => void this.sweep(), CANCELLED_SWEEP_MS);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One look: ends the turns cancelled since the previous look; resolves how many it ended. */
  async sweep(): Promise<number> {
    if (this.sweeping) return 0;
    this.sweeping = true;
    const startedAt = Date.now();
    try {
      const closed = await this.cancelledTurns.closeSince(this.sinceMs);
      this.sinceMs = startedAt - CLOCK_MARGIN_MS;
      return closed;
    } catch {
      return 0;
    } finally {
      this.sweeping = false;
    }
  }
}
