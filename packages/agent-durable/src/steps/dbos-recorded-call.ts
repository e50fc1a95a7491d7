import { performance } from "node:perf_hooks";
import { functionIDGet } from "@dbos-inc/dbos-sdk/internal/context";
import type { TurnClaim } from "../store/turn-claim.js";

/**
 * Makes a DBOS call that records a step of its own (`DBOS.now`,
 * `DBOS.recv`: DBOS stores that row itself, not through the turn's step
 * records) inside the turn's workflow, and notes its row in the claim (see
 * `TurnClaim.noteRecords`): DBOS commits it without waiting for the disk,
 * and from then on the execution's writes and claim checks hold only
 * while it is kept, as for the turn's own step records. Before, a crash of
 * the database that lost such a row (an approval wait that timed out)
 * left the claim holding: the execution went on acting on what the
 * database no longer held (the call blocked, the next request sent), and
 * the replay waited again and took an answer given since (the call ran).
 *
 * `call` must take its position synchronously, before any `await`, as
 * DBOS's calls do: the row checked is the one at the workflow's next
 * position when `call` starts (for `DBOS.recv`, which also takes the next
 * one for its deadline, the message's: that row commits after the
 * deadline's, so while it is kept so is the deadline's).
 */
export async function dbosRecordedCall<T>(claim: TurnClaim, call: () => Promise<T>): Promise<T> {
  const position = functionIDGet();
  const result = await call();
  claim.noteRecords([position], performance.now());
  return result;
}
