import type { TurnContext } from "../turn/turn-context.js";
import { type FaultPoint, stallIfArmed } from "../workers/fault-point.js";

/**
 * Resolves once a check or write found this execution's claim on the turn
 * held within the last `ctx.claimFreshMs`, checking it again while its
 * last confirmation is older; throws `superseded` (and revokes the claim)
 * when it no longer holds. Called right before an effect outside the
 * database (a model request is sent, a tool's `execute` runs): a worker
 * that stalled after its last check (paused past its lease while another
 * worker took the turn over) finds out before it sends or runs anything,
 * instead of when it next writes.
 *
 * The last look at the confirmation's age is synchronous and the caller
 * makes its effect with no wait after it: a stall while a check's answer
 * came back leaves the confirmation too old, and the claim is checked
 * again. A stall after that look, in the instructions that make the
 * effect, still lets it through; no check in this process can close that.
 * `stallPoint`: the test-only fault point (see `fault-point.ts`) that
 * stalls the worker between the check and that look.
 */
export async function confirmClaimBeforeEffect(ctx: TurnContext, stallPoint: FaultPoint): Promise<void> {
  for (;;) {
    if (!ctx.claim.isFresh(ctx.claimFreshMs)) await ctx.stores.turnTable.assertClaimHolds(ctx.claim);
    stallIfArmed(stallPoint, ctx.faultPoint);
    if (ctx.claim.isFresh(ctx.claimFreshMs)) return;
  }
}
