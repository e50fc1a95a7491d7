import type { TurnContext } from "../turn/turn-context.js";
import { type FaultPoint, stallIfArmed } from "../workers/fault-point.js";

/** How long an effect waits before it tries again to renew a lease the database did not answer. */
const RENEW_RETRY_MS = 100;

/**
 * Resolves once this execution may start an effect outside the database (a
 * model request is sent, a tool's `execute` runs): a check or write found
 * its claim on the turn held within the last `ctx.claimFreshMs`, and the
 * worker's lease covers that confirmation (see `WorkerLease.coversEffect`:
 * carried on within the last three quarters of a lease, so no other
 * worker can take the turn over before another quarter lease has passed). Checks the claim again
 * while its confirmation is older, and renews the lease while it is not
 * fresh, waiting as long as the database does not answer: a worker that
 * cannot record what an effect brings back does not start it. Throws
 * `superseded` (and revokes the claim) when the claim no longer holds.
 * Once the worker began to shut down (its lease stopped) it never
 * settles: the execution stops there, as if its process had died, and the
 * turn, handed back, goes on in another worker, which makes the effect.
 *
 * The last look is synchronous and the caller makes its effect with no
 * wait after it: a stall while a check's answer came back leaves the
 * confirmation or the lease too old, and both are checked again. A stall
 * after that look, in the instructions that make the effect, still lets
 * it through; no check in this process can close that, and the lease
 * bounds it: such an effect starts at most its worker's pause after the
 * check, and another worker takes the turn over only a quarter lease later.
 * `stallPoint`: the test-only fault point (see `fault-point.ts`) that
 * stalls the worker between the check and that look.
 */
export async function confirmClaimBeforeEffect(ctx: TurnContext, stallPoint: FaultPoint): Promise<void> {
  for (;;) {
    if (ctx.claim.revoked.aborted) throw ctx.claim.revoked.reason;
    // The worker shuts down and hands the turn back: the effect does not start, and the execution stops here as if
    // its process had died (the next owner makes the effect).
    if (ctx.lease.stopped) return new Promise<never>(() => {});
    if (!ctx.lease.isFresh()) {
      await ctx.lease.renew();
      if (!ctx.lease.isFresh()) {
        // Not answered: no effect until it is (or another worker took the turn over, which revokes the claim).
        await new Promise((resolve) => setTimeout(resolve, RENEW_RETRY_MS));
        continue;
      }
    }
    if (!claimCovered(ctx)) await ctx.stores.turnTable.assertClaimHolds(ctx.claim);
    stallIfArmed(stallPoint, ctx.faultPoint);
    if (claimCovered(ctx)) return;
  }
}

function claimCovered(ctx: TurnContext): boolean {
  return ctx.claim.isFresh(ctx.claimFreshMs) && ctx.lease.coversEffect(ctx.claim.lastConfirmedAt);
}
