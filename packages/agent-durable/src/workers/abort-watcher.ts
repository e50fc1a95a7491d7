import { ABORT_POLL_MS } from "../defaults.js";
import type { TurnTable } from "../store/turn-table.js";
import type { TurnContext } from "../turn/turn-context.js";

/**
 * Looks, for the turns this process runs (one query each for all of them,
 * every {@link ABORT_POLL_MS}), for abort requests, and fires their live
 * abort, which ends the model request or tool call running at that moment;
 * the step records the abort, so the turn's outcome is `aborted` on every
 * replay. For each aborted turn it also sends the turn's abort notice
 * once per execution (`sendAbortNotice`, idempotent), which ends a waiting
 * approval: the client that asked for the abort sends it too, but it may
 * have died between writing the request and sending the notice; likewise
 * for a turn whose execution diverged from its log, which must stop. It also
 * looks whether another worker took a turn over (this worker stalled past
 * its lease): such a turn's claim is revoked, which stops its running step
 * at once, even one that writes nothing.
 */
export class AbortWatcher {
  private timer: ReturnType<typeof setInterval> | undefined;
  private checking = false;
  /** The executions whose abort this watcher found and whose notice it sent. */
  private readonly noticed = new WeakSet<TurnContext>();

  constructor(
    private readonly turnTable: TurnTable,
    private readonly running: ReadonlySet<TurnContext>,
    /** Sends turn `workflowId`'s abort notice; sending it again changes nothing. */
    private readonly sendAbortNotice: (workflowId: string) => Promise<void>,
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
      // Also those whose live abort a step fired already: a step finds the request, an approval wait only the notice.
      const watched = contexts.filter((ctx) => !this.noticed.has(ctx) && !ctx.claim.revoked.aborted);
      const aborted = new Set(await this.turnTable.abortRequested(watched.map((ctx) => ctx.ref.workflowId)));
      // A turn whose log refused its events stops as an aborted one (see `DurableEventWriter.diverged`).
      const found = watched.filter((ctx) => aborted.has(ctx.ref.workflowId) || ctx.writer.diverged.aborted);
      for (const ctx of found) {
        ctx.liveAbort.abort();
        this.noticed.add(ctx);
      }
      await Promise.all(
        found.map((ctx) =>
          // Sent again at the next look when it fails.
          this.sendAbortNotice(ctx.ref.workflowId).catch(() => this.noticed.delete(ctx)),
        ),
      );
    } catch {
      // A failed look is retried at the next tick; the next step checks the flag and the claim itself anyway.
    } finally {
      this.checking = false;
    }
  }
}
