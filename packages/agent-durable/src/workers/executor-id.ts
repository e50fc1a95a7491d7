import { randomBytes } from "node:crypto";

/**
 * The DBOS executor id of one launch of worker `workerId`:
 * `<workerId>#<8 hex digits>`, new at every launch. DBOS writes it on each
 * turn the launch takes from the queue, and the launch's lease row is
 * keyed by it, so the turns of two processes that run under the same
 * worker id (a restarted worker whose old process was only frozen, and
 * woke up) are told apart: each process's turns are taken over when its
 * own lease expires.
 */
export function launchExecutorId(workerId: string): string {
  return `${workerId}#${randomBytes(4).toString("hex")}`;
}

/** The worker id a launch's executor id names (an executor id of another form is returned as it is). */
export function workerIdOfExecutor(executorId: string): string {
  return LAUNCH_SUFFIX.test(executorId) ? executorId.replace(LAUNCH_SUFFIX, "") : executorId;
}

const LAUNCH_SUFFIX = /#[0-9a-f]{8}$/;

/**
 * SQL condition on `executor_id`: a launch of the worker id in parameter
 * `$n` (or that id itself, as executors were named before launches had ids
 * of their own).
 */
export function launchesOfWorkerSql(n: number): string {
  return `(executor_id = $${n} OR (left(executor_id, length($${n}) + 1) = $${n} || '#'
    AND substr(executor_id, length($${n}) + 2) ~ '^[0-9a-f]{8}$'))`;
}
