import type { DBOSClient } from "@dbos-inc/dbos-sdk";
import { type DurableTurnError, workflowFailure } from "../errors.js";

/** DBOS's statuses of a workflow that has not ended, or ended with its outcome. */
const NOT_FAILED: ReadonlySet<string> = new Set(["ENQUEUED", "DELAYED", "PENDING", "SUCCESS"]);

/**
 * The error turn `workflowId`'s workflow ended with when it ended without
 * an outcome (the `DurableTurnError` it failed with, such as `log_write` or
 * `history_write`, or `workflow_failed`: cancelled, or given up by DBOS);
 * `undefined` while it is queued or running, once it has its outcome, and
 * for a workflow that does not exist.
 */
export async function workflowEndedWithoutOutcome(
  dbos: DBOSClient,
  workflowId: string,
): Promise<DurableTurnError | undefined> {
  const workflow = await dbos.getWorkflow(workflowId);
  if (workflow === undefined || NOT_FAILED.has(workflow.status)) return undefined;
  return dbos
    .retrieveWorkflow(workflowId)
    .getResult()
    .then(
      () => undefined,
      (error: unknown) => workflowFailure(error),
    );
}
