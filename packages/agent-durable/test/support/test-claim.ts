import { randomUUID } from "node:crypto";
import type pg from "pg";
import { TurnClaim } from "../../src/store/turn-claim.js";

/**
 * A claim on turn `turnKey` for tests that write to the stores without a
 * running workflow: a pending DBOS workflow row owned by a fresh token, as
 * a worker's dequeue leaves it. Writes carrying the claim succeed until the
 * row's owner changes.
 */
export async function claimForTest(pool: pg.Pool, turnKey: string): Promise<TurnClaim> {
  const token = randomUUID();
  await pool.query(
    `INSERT INTO dbos.workflow_status (workflow_uuid, status, owner_xid) VALUES ($1, 'PENDING', $2)
     ON CONFLICT (workflow_uuid) DO UPDATE SET owner_xid = EXCLUDED.owner_xid`,
    [turnKey, token],
  );
  return new TurnClaim(turnKey, token);
}
