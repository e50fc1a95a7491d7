/**
 * Test-only crash points. A worker launched with the environment variable
 * `TURNKIT_DURABLE_FAULT` set to one of these names kills its own process
 * with `SIGKILL` when it reaches that point, so a test can crash a worker
 * exactly there (between two writes that a crash must not separate).
 * A stall point stops the process with `SIGSTOP` instead (it stalls, as
 * under a frozen VM, until the test sends `SIGCONT`). Unset (always,
 * outside tests) nothing happens.
 *
 * - `adoption-before-requeue`: this worker took over a dead worker's lease
 *   and is about to queue that worker's turns again.
 * - `adoption-after-requeue`: it queued them again and is about to drop the
 *   dead worker's lease row.
 * - `model-request-after-steering-take`: a model request that took waiting
 *   steering messages when it ended is about to store its record.
 * - `model-request-aborted-recorded`: a model request the turn's abort
 *   stopped has stored its record, and the runner has not heard of it yet.
 * - `model-request-before-send` (a stall point): a model request's check
 *   that this execution holds its claim answered, and the request is about
 *   to be sent (before the last look at how fresh that answer is).
 * - `tool-call-before-run` (a stall point): a tool call counted its attempt
 *   and its check of the claim answered, and its `execute` is about to run
 *   (before the last look at how fresh that answer is).
 * - `hook-before-run` (a stall point): a host hook's step checked the
 *   claim, and the hook is about to be called (before the last look at how
 *   fresh that answer is).
 * - `model-request-after-claim-check` (a stall point): a model request
 *   passed its last look at the claim, right before it is sent (a stall
 *   here lets it go out; what comes back is never logged or recorded).
 * - `tool-call-after-claim-check` (a stall point): a tool call passed its
 *   last look at the claim, right before `execute` (a stall here lets it
 *   run; its result is never logged or recorded).
 * - `steering-take-in-transaction` (a stall point, the first time only): a
 *   step takes waiting steering messages, in a transaction that holds the
 *   turn's rows locked and has written nothing yet.
 * - `approval-received` (a stall point, the first time only): an approval
 *   wait's `DBOS.recv` returned (an answer, an abort notice, or nothing by
 *   the deadline), and nothing has acted on it yet.
 * - `heartbeats-unanswered` (neither crash nor stall): the heartbeats of the
 *   six leases after the worker's first fail as ones the database did not
 *   answer, while its other statements go through.
 */
export type FaultPoint =
  | "adoption-before-requeue"
  | "adoption-after-requeue"
  | "model-request-after-steering-take"
  | "model-request-aborted-recorded"
  | "model-request-before-send"
  | "tool-call-before-run"
  | "hook-before-run"
  | "model-request-after-claim-check"
  | "tool-call-after-claim-check"
  | "steering-take-in-transaction"
  | "approval-received"
  | "heartbeats-unanswered";

/** The environment variable that arms a {@link FaultPoint}. */
export const FAULT_POINT_ENV = "TURNKIT_DURABLE_FAULT";

/** Stops this process with `SIGSTOP` when `armed` (the worker's `TURNKIT_DURABLE_FAULT`) names `point`. */
export function stallIfArmed(point: FaultPoint, armed: string | undefined): void {
  if (armed === point) process.kill(process.pid, "SIGSTOP");
}

/** The stall points this process stopped at already (see {@link stallOnceIfArmed}). */
const stalledOnce = new Set<FaultPoint>();

/** As {@link stallIfArmed}, the first time this process reaches `point` only. */
export function stallOnceIfArmed(point: FaultPoint, armed: string | undefined): void {
  if (armed !== point || stalledOnce.has(point)) return;
  stalledOnce.add(point);
  stallIfArmed(point, armed);
}

/** Whether `armed` (the worker's `TURNKIT_DURABLE_FAULT`) names `point`. */
export function isArmed(point: FaultPoint, armed: string | undefined): boolean {
  return armed === point;
}

/** Kills this process with `SIGKILL` when `armed` (the worker's `TURNKIT_DURABLE_FAULT`) names `point`. */
export function crashIfArmed(point: FaultPoint, armed: string | undefined): void {
  if (armed === point) process.kill(process.pid, "SIGKILL");
}
