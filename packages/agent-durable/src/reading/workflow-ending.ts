import type { DBOSClient } from "@dbos-inc/dbos-sdk";
import { type DurableTurnError, workflowFailure } from "../errors.js";
import type { CancelledTurns } from "../store/cancelled-turn.js";

/** DBOS's statuses of a workflow that has not ended, or ended with its outcome. */
const NOT_FAILED: ReadonlySet<string> = new Set(["ENQUEUED", "DELAYED", "PENDING", "SUCCESS"]);

/**
 * The error turn `workflowId`'s workflow ended with when it ended without
 * an outcome (the `DurableTurnError` it failed with, such as `log_write` or
 * `history_write`, or `workflow_failed`: given up by DBOS); `undefined`
 * while it is queued or running, once it has its outcome, and for a
 * workflow that does not exist. A workflow cancelled with DBOS's tools is
 * no failure: the turn is ended as aborted here (its log then ends, see
 * `closeCancelledTurn`), and `undefined` is returned.
 */
export async function workflowEndedWithoutOutcome(
  dbos: DBOSClient,
  cancelledTurns: CancelledTurns,
  workflowId: string,
  /** Bounds each call of DBOS's client (which retries a statement the database does not answer without end). */
  bounded: <T>(work: Promise<T>) => Promise<T>,
): Promise<DurableTurnError | undefined> {
  const workflow = await bounded(dbos.getWorkflow(workflowId));
  if (workflow === undefined || NOT_FAILED.has(workflow.status)) return undefined;
  if (workflow.status === "CANCELLED") {
    await cancelledTurns.close(workflowId);
    return undefined;
  }
  return bounded(dbos.retrieveWorkflow(workflowId).getResult()).then(
    () => undefined,
    (error: unknown) => workflowFailure(error),
  );
}
