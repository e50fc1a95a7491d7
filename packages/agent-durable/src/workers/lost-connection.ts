import type pg from "pg";
import { LOST_TURN_RETRY_MS } from "../defaults.js";
import { isDatabaseUnreachable } from "../store/unreachable-database.js";
import type { HandBackTurn, TurnExecution } from "../store/handing-back-pool.js";
import { TurnClaim } from "../store/turn-claim.js";
import { requeueLostTurn } from "./requeue-turns.js";

/** What {@link handBackLostTurns} needs of its worker. */
export interface LostTurnOptions {
  /** Where the turn is queued again: a pool whose statements time out, and that no turn's statement holds up. */
  db: pg.Pool;
  queueName: string;
  /** The claims of the executions running in this worker, to revoke the one that lost its connection. */
  claims(): Iterable<TurnClaim>;
  /** True once the worker began to shut down: it hands every turn back itself. */
  stopped(): boolean;
}

/**
 * The worker's answer to a statement of a turn's execution whose connection
 * was lost (see `HandingBackPool`): it queues the turn again, revoking the
 * execution's claim, and resolves to the `superseded` error the statement
 * then rejects with (the execution's claim fires `revoked`, so it stops).
 * While the database cannot be reached it tries again every
 * {@link LOST_TURN_RETRY_MS}, so the execution waits, as its statements
 * would; until another worker took the turn over (its lease expired), which
 * revoked the claim already. Once the worker began to shut down it resolves
 * to the statement's own error (the shutdown hands the turn back).
 */
export function handBackLostTurns(options: LostTurnOptions): HandBackTurn {
  return async (execution, error) => {
    const claim = claimOf(options.claims(), execution) ?? new TurnClaim(execution.turnKey, execution.token);
    for (;;) {
      if (claim.revoked.aborted) return claim.revoked.reason;
      if (options.stopped()) return error;
      try {
        if (await requeueLostTurn(options.db, claim, options)) return claim.lost();
      } catch (failure) {
        if (!isDatabaseUnreachable(failure)) return failure;
      }
      await new Promise((resolve) => setTimeout(resolve, LOST_TURN_RETRY_MS));
    }
  };
}

function claimOf(claims: Iterable<TurnClaim>, execution: TurnExecution): TurnClaim | undefined {
  for (const claim of claims) if (claim.turnKey === execution.turnKey && claim.token === execution.token) return claim;
  return undefined;
}
