import { DBOS } from "@dbos-inc/dbos-sdk";
import { functionIDGetIncrement, getCurrentContextStore, runInStepContext } from "@dbos-inc/dbos-sdk/internal/context";
import { DBOSExecutor } from "@dbos-inc/dbos-sdk/internal/dbos-executor";
import { DBOSUnexpectedStepError } from "@dbos-inc/dbos-sdk/internal/error";
import {
  serializeFunctionInputOutput,
  serializeResErrorWithSerializer,
} from "@dbos-inc/dbos-sdk/internal/serialization";
import type { StepRecords, StoredStep } from "../store/step-records.js";
import type { TurnClaim } from "../store/turn-claim.js";

/** What a recorded step needs of its turn's context (a `TurnContext` is one). */
export interface RecordedStepContext {
  readonly ref: { readonly workflowId: string };
  /** The execution's claim: a record is stored only while it holds. */
  readonly claim: TurnClaim;
  readonly stores: { readonly stepRecords: StepRecords };
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
 * The position is taken before any `await`, so steps started together
 * (parallel tool calls) take them in call order, as with `DBOS.runStep`.
 */
export async function runRecordedStep<T>(ctx: RecordedStepContext, name: string, body: () => Promise<T>): Promise<T> {
  if (DBOS.isInStep()) return body();
  const functionId = functionIDGetIncrement();
  const parent = { ...getCurrentContextStore()! };
  const executor = DBOSExecutor.globalInstance!;
  ctx.stepRecords ??= ctx.stores.stepRecords.load(ctx.ref.workflowId);
  const recorded = (await ctx.stepRecords).get(functionId);
  if (recorded) return revive<T>(ctx, functionId, name, recorded);
  const startedAtMs = Date.now();
  const attempt = { getCancelSignal: () => NEVER_CANCELLED };
  let result: T;
  try {
    result = await runInStepContext(parent, functionId, attempt, body);
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    const stored = await serializeResErrorWithSerializer(failure, executor.serializer, executor.serializer.name());
    await record(
      ctx,
      { functionId, name, startedAtMs, output: null, error: stored.serializedValue },
      stored.serialization,
    );
    throw error;
  }
  const stored = await serializeFunctionInputOutput(result, [name, "<result>"], executor.serializer);
  await record(ctx, { functionId, name, startedAtMs, output: stored.stringified, error: null }, stored.sername);
  return stored.deserialized;
}

function record(
  ctx: RecordedStepContext,
  step: { functionId: number; name: string; startedAtMs: number; output: string | null; error: string | null },
  serialization: string | null,
): Promise<void> {
  return ctx.stores.stepRecords.record(ctx.claim, {
    functionId: step.functionId,
    functionName: step.name,
    output: step.output,
    error: step.error,
    serialization,
    startedAtMs: step.startedAtMs,
    completedAtMs: Date.now(),
    applicationName: DBOSExecutor.globalInstance?.appName ?? null,
  });
}

/** A step's result (or its thrown error) from its record; a record of another step at this position is a replay that went astray. */
function revive<T>(ctx: RecordedStepContext, functionId: number, name: string, recorded: StoredStep): Promise<T> {
  if (recorded.functionName !== name)
    throw new DBOSUnexpectedStepError(ctx.ref.workflowId, functionId, name, recorded.functionName);
  return DBOSExecutor.reviveResultOrError<T>(recorded, DBOSExecutor.globalInstance!.serializer);
}
