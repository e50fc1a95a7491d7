import { performance } from "node:perf_hooks";
import { DBOS } from "@dbos-inc/dbos-sdk";
import { functionIDGetIncrement, getCurrentContextStore, runInStepContext } from "@dbos-inc/dbos-sdk/internal/context";
import { DBOSExecutor } from "@dbos-inc/dbos-sdk/internal/dbos-executor";
import { DBOSUnexpectedStepError } from "@dbos-inc/dbos-sdk/internal/error";
import {
  serializeFunctionInputOutput,
  serializeResErrorWithSerializer,
} from "@dbos-inc/dbos-sdk/internal/serialization";
import { DurableTurnError, DurableTurnErrorCode } from "../errors.js";
import type { SqlCondition, StepRecords, StoredStep } from "../store/step-records.js";
import type { TurnClaim } from "../store/turn-claim.js";

/** What a recorded step needs of its turn's context (a `TurnContext` is one). */
export interface RecordedStepContext {
  readonly ref: { readonly workflowId: string };
  /** The execution's claim: a record is stored only while it holds. */
  readonly claim: TurnClaim;
  readonly stores: { readonly stepRecords: StepRecords };
  /** The worker's lease: stopped once the worker began to shut down (see {@link runRecordedStep}). */
  readonly lease: { readonly stopped: boolean };
  /** The turn's records as this execution read them at its first recorded step; set by {@link runRecordedStep}. */
  stepRecords?: Promise<Map<number, StoredStep>>;
}

/** The signal a recorded step's body sees as DBOS's cancellation signal: turns are stopped by their own abort, never cancelled by DBOS. */
const NEVER_CANCELLED = new AbortController().signal;

/**
 * Runs `body` as a step of the turn's workflow, as `DBOS.runStep` does
 * (the same position among the workflow's steps, the same record in DBOS's
 * step table, `DBOS.isInStep()` and `DBOS.stepID` inside it; a record
 * found is returned, or its error thrown, and `body` does not run), with
 * fewer round trips: the execution reads every record of the turn once, at
 * its first such step, and a step that runs live stores its record in one
 * statement that checks the execution's claim (throws `superseded` when it
 * no longer holds). Like `DBOS.runStep`, `body` runs as it is inside
 * another step (nothing recorded), and a `body` that throws has its error
 * recorded and rethrown. No retries and no DBOS cancellation: a turn stops
 * by its own abort.
 *
 * `finish`, when given, makes the record depend on the database as the
 * statement storing it finds it (see {@link ConditionalRecord}): a step
 * that ends with a read (the steering waiting) stores its record in the
 * same round trip as that read when the read finds what it expects.
 *
 * The position is taken before any `await`, so steps started together
 * (parallel tool calls) take them in call order, as with `DBOS.runStep`.
 *
 * Once the worker began to shut down (`ctx.lease.stopped`), a step that
 * fails (its body throws, or its record cannot be stored or read, as once
 * DBOS stopped) records nothing and never settles: the execution stops
 * there, as if its process had died, and the turn, handed back, goes on in
 * another worker. Its caller would otherwise make the failure the turn's
 * (a model request that failed, a tool call that threw) and log it while
 * the claim still holds.
 */
export async function runRecordedStep<T>(
  ctx: RecordedStepContext,
  name: string,
  body: () => Promise<T>,
  finish?: (result: T, stepId: number) => ConditionalRecord<T>,
): Promise<T> {
  if (DBOS.isInStep()) return body();
  try {
    return await runStepOnce(ctx, name, body, finish);
  } catch (error) {
    if (ctx.lease.stopped) return new Promise<never>(() => {});
    throw error;
  }
}

/** {@link runRecordedStep} outside another step: the record, or the body run live and its outcome recorded. */
async function runStepOnce<T>(
  ctx: RecordedStepContext,
  name: string,
  body: () => Promise<T>,
  finish?: (result: T, stepId: number) => ConditionalRecord<T>,
): Promise<T> {
  const functionId = functionIDGetIncrement();
  const parent = { ...getCurrentContextStore()! };
  ctx.stepRecords ??= loadRecords(ctx);
  const recorded = (await ctx.stepRecords).get(functionId);
  if (recorded) return revive<T>(ctx, functionId, name, recorded);
  const step = { functionId, name, startedAtMs: Date.now() };
  const attempt = { getCancelSignal: () => NEVER_CANCELLED };
  let result: T;
  try {
    result = await runInStepContext(parent, functionId, attempt, body);
  } catch (error) {
    // Failed once the worker began to shut down: recorded nothing (see runRecordedStep).
    if (ctx.lease.stopped) throw error;
    throw await recordError(ctx, step, error);
  }
  if (finish !== undefined) {
    const conditional = finish(result, functionId);
    const stored = await recordResult(ctx, step, conditional.value, conditional.condition);
    if (stored !== undefined) return stored;
    try {
      result = await conditional.otherwise();
    } catch (error) {
      if (ctx.lease.stopped) throw error;
      throw await recordError(ctx, step, error);
    }
  }
  return (await recordResult(ctx, step, result))!;
}

/**
 * The turn's records as the database holds them now. Those an earlier
 * execution stored may not be on disk yet: the claim holds only while they
 * are kept (see `TurnClaim.noteRecords`), so this execution acts on none
 * that a crash of the database then loses.
 */
async function loadRecords(ctx: RecordedStepContext): Promise<Map<number, StoredStep>> {
  const records = await ctx.stores.stepRecords.load(ctx.ref.workflowId);
  ctx.claim.noteRecords(records.keys(), performance.now());
  return records;
}

/**
 * DBOS's serializer, to record step `name`'s outcome. Once the worker shut
 * DBOS down while the step ran, nothing can be recorded: a
 * `DurableTurnError` (`worker_state`) says so, and the turn, still pending
 * in the database, is resumed by a worker that runs.
 */
function runningSerializer(name: string): NonNullable<typeof DBOSExecutor.globalInstance>["serializer"] {
  const executor = DBOSExecutor.globalInstance;
  if (!executor)
    throw new DurableTurnError({
      code: DurableTurnErrorCode.WorkerState,
      message: `step ${name} ended after its worker shut down: its outcome is not recorded, and a running worker resumes the turn`,
    });
  return executor.serializer;
}

/** Records what the step threw as its outcome (a replay throws it again) and returns it for the caller to throw. */
async function recordError(
  ctx: RecordedStepContext,
  step: { functionId: number; name: string; startedAtMs: number },
  error: unknown,
): Promise<unknown> {
  const serializer = runningSerializer(step.name);
  const failure = error instanceof Error ? error : new Error(String(error));
  const stored = await serializeResErrorWithSerializer(failure, serializer, serializer.name());
  await record(ctx, { ...step, output: null, error: stored.serializedValue }, stored.serialization);
  return error;
}

/**
 * A step's record that holds only while `condition` does when it is stored
 * (checked in the statement that stores it): `value` then; else the record
 * `otherwise` computes, stored without a condition.
 */
export interface ConditionalRecord<T> {
  value: T;
  /** A SQL condition over the turn key (`$1`) and `params`, numbered from `$firstParam`. */
  condition: (firstParam: number) => SqlCondition;
  otherwise: () => Promise<T>;
}

/** Stores `result` as the step's record (when `condition` holds) and returns it as a replay would see it; `undefined` when not stored. */
async function recordResult<T>(
  ctx: RecordedStepContext,
  step: { functionId: number; name: string; startedAtMs: number },
  result: T,
  condition?: (firstParam: number) => SqlCondition,
): Promise<T | undefined> {
  const serializer = runningSerializer(step.name);
  const stored = await serializeFunctionInputOutput(result, [step.name, "<result>"], serializer);
  const recorded = await record(ctx, { ...step, output: stored.stringified, error: null }, stored.sername, condition);
  return recorded ? stored.deserialized : undefined;
}

function record(
  ctx: RecordedStepContext,
  step: { functionId: number; name: string; startedAtMs: number; output: string | null; error: string | null },
  serialization: string | null,
  condition?: (firstParam: number) => SqlCondition,
): Promise<boolean> {
  return ctx.stores.stepRecords.record(
    ctx.claim,
    {
      functionId: step.functionId,
      functionName: step.name,
      output: step.output,
      error: step.error,
      serialization,
      startedAtMs: step.startedAtMs,
      completedAtMs: Date.now(),
      applicationName: DBOSExecutor.globalInstance?.appName ?? null,
    },
    condition,
  );
}

/** A step's result (or its thrown error) from its record; a record of another step at this position is a replay that went astray. */
function revive<T>(ctx: RecordedStepContext, functionId: number, name: string, recorded: StoredStep): Promise<T> {
  if (recorded.functionName !== name)
    throw new DBOSUnexpectedStepError(ctx.ref.workflowId, functionId, name, recorded.functionName);
  return DBOSExecutor.reviveResultOrError<T>(recorded, runningSerializer(name));
}
